/**
 * The rewriter chain end to end: configured per workflow, applied in order, the forwarded body is the last
 * changed revision, the client's own body is what the audit keeps.
 */
import { expect, test } from 'bun:test'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  providersFromEnv: false,
  yaml: (urls) => `
providers:
  up: { type: groq, api_key: k, base_url: "${urls.openai}" }
workflows:
  - name: default
    plugins:
      system-prompt: { prompt: "Answer in English.", mode: prepend }
      context-slimmer: { enabled: true }
`,
  env: { LOGGING_LOG_BODIES: 'true' },
})

test('system prompt, slimmer and parameter normaliser run in order on what goes upstream; the audit keeps each revision', async () => {
  const { response } = await t.openai.chat.completions
    .create({
      model: 'up/llama',
      max_completion_tokens: 64,
      store: true,
      messages: [
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt      1\nb.txt      2\n\n\n\n' },
      ],
    })
    .withResponse()
  const sent = t.openaiMock.requests.at(-1)!.body
  expect(sent.messages[0]).toEqual({ role: 'system', content: 'Answer in English.' })
  expect(sent.messages[3].content).toBe('a.txt 1\nb.txt 2\n\n')
  expect(sent.max_tokens).toBe(64)
  expect(sent.max_completion_tokens).toBeUndefined()
  expect(sent.store).toBeUndefined()

  const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
  const revisions = entry.data.request_revisions!
  expect(revisions.map((r) => [r.seq, r.rewriter, r.no_change ?? false])).toEqual([
    [1, 'system-prompt', false],
    [2, 'context-slimmer', false],
    [3, 'parameter-normaliser', false],
  ])
  expect(revisions[1]!.tokens_saved).toBeGreaterThan(0)
  expect(revisions[1]!.bytes_after).toBeLessThan(revisions[1]!.bytes_before)
  expect(revisions[2]!.body).toEqual({ ...sent, model: 'up/llama' }) // routing swaps in the upstream model id afterwards
  expect((entry.data.request_body as { messages: unknown[] }).messages).toHaveLength(3)
  expect(entry.usage?.rewrite_tokens_saved).toBe(revisions.reduce((s, r) => s + r.tokens_saved, 0))
})

test('a rewriter with nothing to do leaves a no-change revision', async () => {
  const { response } = await t.openai.chat.completions.create({ model: 'up/llama', messages: [{ role: 'user', content: 'hi' }] }).withResponse()
  const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
  const slimmer = entry.data.request_revisions!.find((r) => r.rewriter === 'context-slimmer')!
  expect(slimmer).toMatchObject({ no_change: true, tokens_saved: 0 })
  expect(slimmer.bytes_after).toBe(slimmer.bytes_before)
  expect(slimmer.body).toBeUndefined()
})
