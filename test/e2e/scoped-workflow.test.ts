/**
 * A request matched by a scoped workflow runs its early hooks (auth, resolve) before the workflow is known and
 * the rest after: plugin state kept between the two halves must survive the switch. Regression test for issue
 * #16 (threads lost their history, custom tool calls came back wrapped).
 */
import { expect, test } from 'bun:test'
import type OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  providersFromEnv: false,
  yaml: (urls) => `
providers:
  mistral: { type: mistral, api_key: k1, base_url: "${urls.openai}" }
workflows:
  - name: mistral-only
    scope: { provider: mistral }
    features: { cache: true }
`,
})

test('the scoped workflow is the one that runs', async () => {
  const { response } = await t.openai.chat.completions.create({ model: 'mistral/gpt-4o', messages: [{ role: 'user', content: 'echo:scoped' }] }).withResponse()
  const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
  const workflows = (await (await fetch(`${t.gw.url}/admin/workflows`, { headers: { authorization: `Bearer ${t.master}` } })).json()) as {
    data: { name: string; version_id: string }[]
  }
  const scoped = workflows.data.find((w) => w.name === 'mistral-only')!
  expect(entry.workflow_version_id).toBe(scoped.version_id)
})

test('previous_response_id keeps the thread under a scoped workflow', async () => {
  const first = await t.openai.responses.create({ model: 'mistral/gpt-4o', input: 'echo:my name is Ada' })
  await t.openai.responses.create({ model: 'mistral/gpt-4o', input: 'echo:what is my name?', previous_response_id: first.id })
  expect(t.openaiMock.requests.at(-1)!.body.messages).toEqual([
    { role: 'user', content: 'echo:my name is Ada' },
    { role: 'assistant', content: 'my name is Ada' },
    { role: 'user', content: 'echo:what is my name?' },
  ])
})

test('a custom tool call (ApplyPatch) is unwrapped under a scoped workflow', async () => {
  const applyPatch = {
    type: 'custom',
    name: 'ApplyPatch',
    description: 'Apply a patch',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk end_patch' },
  }
  const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mistral/apply-patch', input: 'fix a.txt', tools: [applyPatch] }),
  })
  const body = (await res.json()) as OpenAI.ChatCompletion
  const call = body.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
  expect(call.function).toEqual({ name: 'ApplyPatch', arguments: '*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch' })
})
