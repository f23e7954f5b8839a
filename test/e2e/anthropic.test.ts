/**
 * Anthropic models behind the OpenAI-compatible API, end to end with the official `openai` SDK against a mock
 * Anthropic upstream that speaks the Messages wire format.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, startMockAnthropic } from '../helpers/mock-anthropic-upstream.ts'

const MASTER = 'master-key-for-tests'
let mock: ReturnType<typeof startMockAnthropic>
let gw: RunningGateway
let client: OpenAI
const messages = [{ role: 'user' as const, content: 'Hello' }]
const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]

beforeAll(async () => {
  mock = startMockAnthropic('sk-ant-test')
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: mock.url })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
})
afterAll(async () => {
  await gw.stop()
  mock.stop()
})

test('non-stream: the Messages call carries the version header and key; usage counts cache tokens', async () => {
  const res = await client.chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'system', content: 'Be kind.' }, ...messages] })
  expect(res.choices[0]!.message.content).toBe(ANTHROPIC_TEXT)
  expect(res.usage).toMatchObject({ prompt_tokens: 125, completion_tokens: 12, total_tokens: 137, prompt_tokens_details: { cached_tokens: 100 } })
  const sent = mock.requests.at(-1)!
  expect(sent.path).toBe('/v1/messages')
  expect(sent.headers['anthropic-version']).toBe('2023-06-01')
  expect(sent.headers['x-api-key']).toBe('sk-ant-test')
  expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', system: 'Be kind.', max_tokens: 4096 })
})

test('stream: split UTF-8, pings and trailing spaces are handled; finalChatCompletion and include_usage work', async () => {
  const stream = client.chat.completions.stream({ model: 'anthropic/claude-sonnet-4-5', messages, stream_options: { include_usage: true } })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
  const final = await stream.finalChatCompletion()
  expect(text).toBe(ANTHROPIC_TEXT)
  expect(final.choices[0]!.finish_reason).toBe('stop')
  expect(final.usage).toMatchObject({ prompt_tokens: 125, completion_tokens: 12 })
})

test('tool calls (plain and streamed) and the tool result turn', async () => {
  const plain = await client.chat.completions.create({ model: 'anthropic/tool', messages, tools })
  expect(plain.choices[0]!.finish_reason).toBe('tool_calls')
  expect(plain.choices[0]!.message.tool_calls![0]).toMatchObject({ id: 'toolu_01', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } })

  const final = await client.chat.completions.stream({ model: 'anthropic/tool', messages, tools }).finalChatCompletion()
  const call = final.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
  expect(final.choices[0]!.message.content).toBe('Let me check.')
  expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' })

  await client.chat.completions.create({
    model: 'anthropic/claude-sonnet-4-5',
    tools,
    messages: [...messages, { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, { role: 'tool', tool_call_id: 'toolu_01', content: '18C' }],
  })
  expect(mock.requests.at(-1)!.body.messages.slice(1)).toEqual([
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18C' }] },
  ])
})

test('/v1/responses works over an Anthropic model (translated both ways)', async () => {
  const res = await client.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'Hello' })
  expect(res.output_text).toBe(ANTHROPIC_TEXT)
  const final = await client.responses.stream({ model: 'anthropic/claude-sonnet-4-5', input: 'Hello' }).finalResponse()
  expect(final.output_text).toBe(ANTHROPIC_TEXT)
  expect(final.usage).toMatchObject({ input_tokens: 125, output_tokens: 12 })
})

test('errors: 529 overloaded is a 503 naming the provider; a stream-borne error reaches the SDK', async () => {
  const err = await client.chat.completions.create({ model: 'anthropic/overloaded', messages }).catch((e) => e)
  expect(err).toBeInstanceOf(OpenAI.InternalServerError)
  expect(err.status).toBe(503)
  expect(err.error).toMatchObject({ provider: 'anthropic', message: 'Overloaded' })
  const stream = await client.chat.completions.create({ model: 'anthropic/stream-error', messages, stream: true })
  const streamErr = await (async () => {
    for await (const _ of stream) {
      // drain
    }
  })().catch((e) => e)
  expect(streamErr).toBeInstanceOf(OpenAI.APIError)
  expect(String(streamErr.message)).toContain('Overloaded')
})

test('the model list comes from the upstream', async () => {
  const ids = []
  for await (const m of client.models.list()) ids.push(m.id)
  expect(ids).toContain('anthropic/claude-sonnet-4-5')
})
