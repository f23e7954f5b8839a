/**
 * IDE agent shapes on /v1/chat/completions: Responses-style bodies in, chat completions out; custom tools
 * (ApplyPatch) come back as function calls whose arguments are the raw patch text.
 */
import { expect, test } from 'bun:test'
import type OpenAI from 'openai'
import { Stream } from 'openai/core/streaming'
import { ChatStreamFold } from '../../src/pipeline/chat-stream-fold.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite()

const applyPatchTool = {
  type: 'custom',
  name: 'ApplyPatch',
  description: 'Apply a patch',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk end_patch' },
}
const PATCH = '*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch'

function post(body: unknown) {
  return fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

test('an agent-mode body with input and flat tools is answered as a chat completion', async () => {
  const res = await post({
    model: 'openai/gpt-4o',
    input: [{ role: 'user', content: 'echo:from input' }],
    tools: [{ type: 'function', name: 'read_file', parameters: { type: 'object', properties: {} } }],
  })
  expect(res.status).toBe(200)
  const body = (await res.json()) as OpenAI.ChatCompletion
  expect(body.object).toBe('chat.completion')
  expect(body.choices[0]!.message.content).toBe('from input')
  const sent = t.openaiMock.requests.at(-1)!.body
  expect(sent.messages).toEqual([{ role: 'user', content: 'echo:from input' }])
  expect(sent.tools[0]).toEqual({ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } })
})

test('ApplyPatch comes back as a function call with the raw patch as arguments (JSON and stream)', async () => {
  const res = await post({ model: 'openai/apply-patch', input: 'fix a.txt', tools: [applyPatchTool] })
  const body = (await res.json()) as OpenAI.ChatCompletion
  const call = body.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
  expect(call.function).toEqual({ name: 'ApplyPatch', arguments: PATCH })
  expect(t.openaiMock.requests.at(-1)!.body.tools[0].function.name).toBe('ApplyPatch')

  // The SDK's stream helper insists on `messages`, so the raw body goes through fetch and the SDK's own SSE
  // decoder; the gateway's fold reassembles the chunks.
  const raw = await post({ model: 'openai/apply-patch', stream: true, input: 'fix a.txt', tools: [applyPatchTool] })
  const fold = new ChatStreamFold()
  for await (const chunk of Stream.fromSSEResponse<Record<string, unknown>>(raw, new AbortController())) fold.add(chunk)
  const final = fold.result() as unknown as OpenAI.ChatCompletion
  const streamed = final.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
  expect(streamed.function).toEqual({ name: 'ApplyPatch', arguments: PATCH })
  expect(final.choices[0]!.finish_reason).toBe('tool_calls')
})
