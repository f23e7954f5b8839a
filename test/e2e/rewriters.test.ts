/**
 * The rewriter chain end to end: configured per workflow, applied in order, the forwarded body is the last
 * changed revision, the client's own body is what the audit keeps.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-tests'
let mock: MockUpstream
let gw: RunningGateway
let client: OpenAI

beforeAll(async () => {
  mock = startMockOpenAI()
  const file = writeGatewayYaml(`
providers:
  up: { type: groq, api_key: k, base_url: "${mock.url}" }
workflows:
  - name: default
    plugins:
      system-prompt: { prompt: "Answer in English.", mode: prepend }
      context-slimmer: { enabled: true }
`,
  )
  gw = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER, LOGGING_LOG_BODIES: 'true' })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
})
afterAll(async () => {
  await gw.stop()
  mock.stop()
})

test('system prompt, slimmer and parameter normaliser run in order on what goes upstream', async () => {
  await client.chat.completions.create({
    model: 'up/llama',
    max_completion_tokens: 64,
    store: true,
    messages: [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'a.txt      1\nb.txt      2\n\n\n\n' },
    ],
  })
  const sent = mock.requests.at(-1)!.body
  expect(sent.messages[0]).toEqual({ role: 'system', content: 'Answer in English.' })
  expect(sent.messages[3].content).toBe('a.txt 1\nb.txt 2\n\n')
  expect(sent.max_tokens).toBe(64)
  expect(sent.max_completion_tokens).toBeUndefined()
  expect(sent.store).toBeUndefined()
})
