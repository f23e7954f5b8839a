/**
 * Anthropic models behind the OpenAI APIs, end to end: the official `openai` SDK against a real gateway in front
 * of a mock Anthropic upstream that speaks the Messages wire format (chat and Responses translated both ways).
 * The Anthropic-format ingress (`/v1/messages`) is tested in anthropic-messages.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { ANTHROPIC_TEXT } from '../helpers/mock-anthropic-upstream.ts'
import { sseEvents, streamError } from '../helpers/sse-events.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { readChatStream } from '../helpers/chat-stream.ts'

const t = useGatewaySuite({ families: ['anthropic'] })

const messages = [{ role: 'user' as const, content: 'Hello' }]
const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${t.gw.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${t.master}` }, body: JSON.stringify(body) })
}

describe('openai SDK → Anthropic upstream', () => {
  test('non-stream: the Messages call carries the version header and key; usage counts cache tokens', async () => {
    const res = await t.openai.chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'system', content: 'Be kind.' }, ...messages] })
    expect(res.choices[0]!.message.content).toBe(ANTHROPIC_TEXT)
    expect(res.choices[0]!.finish_reason).toBe('stop')
    expect(res.usage).toMatchObject({ prompt_tokens: 125, completion_tokens: 12, total_tokens: 137, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 } })
    const sent = t.anthropicMock.requests.at(-1)!
    expect(sent.path).toBe('/v1/messages')
    expect(sent.headers['anthropic-version']).toBe('2023-06-01')
    expect(sent.headers['x-api-key']).toBe('sk-ant-test')
    expect(sent.headers.authorization).toBeUndefined()
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', system: 'Be kind.', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] })
  })

  test('stream: split UTF-8, pings and trailing spaces are handled; finalChatCompletion and include_usage work', async () => {
    const { text, final } = await readChatStream(t.openai.chat.completions.stream({ model: 'anthropic/claude-sonnet-4-5', messages, stream_options: { include_usage: true } }))
    expect(text).toBe(ANTHROPIC_TEXT)
    expect(final.choices[0]!.finish_reason).toBe('stop')
    expect(final.usage).toMatchObject({ prompt_tokens: 125, completion_tokens: 12, total_tokens: 137 })
    // Newer API versions repeat the input count in message_delta; the final figure wins.
    const later = await t.openai.chat.completions.stream({ model: 'anthropic/final-usage', messages, stream_options: { include_usage: true } }).finalChatCompletion()
    expect(later.usage).toMatchObject({ prompt_tokens: 126, total_tokens: 138 })
  })

  test('raw stream: data-only frames, one usage chunk with choices:[] only when asked for, then [DONE]', async () => {
    const body = { model: 'anthropic/claude-sonnet-4-5', messages, stream: true }
    const withUsage = sseEvents(await (await post('/chat/completions', { ...body, stream_options: { include_usage: true } })).text())
    const without = sseEvents(await (await post('/chat/completions', body)).text())
    for (const events of [withUsage, without]) {
      expect(events.every(([name]) => name === undefined)).toBe(true)
      expect(events.at(-1)![1]).toBe('[DONE]')
      expect(events[0]![1].choices[0].delta.role).toBe('assistant')
    }
    const usageChunks = (events: [string | undefined, any][]) => events.filter(([, d]) => d !== '[DONE]' && d.choices.length === 0)
    expect(usageChunks(withUsage)).toHaveLength(1)
    expect(withUsage.at(-2)![1]).toMatchObject({ choices: [], usage: { prompt_tokens: 125, completion_tokens: 12 } })
    expect(usageChunks(without)).toHaveLength(0)
  })

  test('tool calls (plain and streamed) and the tool result turn', async () => {
    const plain = await t.openai.chat.completions.create({ model: 'anthropic/tool', messages, tools })
    expect(plain.choices[0]!.finish_reason).toBe('tool_calls')
    expect(plain.choices[0]!.message.tool_calls![0]).toMatchObject({ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } })

    const final = await t.openai.chat.completions.stream({ model: 'anthropic/tool', messages, tools }).finalChatCompletion()
    const call = final.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
    expect(final.choices[0]!.message.content).toBe('Let me check.')
    expect(final.choices[0]!.finish_reason).toBe('tool_calls')
    expect(call.id).toBe('toolu_01')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' })

    await t.openai.chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      tools,
      parallel_tool_calls: false,
      messages: [
        ...messages,
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01', content: '18C' },
      ],
    })
    const sent = t.anthropicMock.requests.at(-1)!.body
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18C' }] },
    ])
    expect(sent.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true })
  })

  test('thinking streams as reasoning_content', async () => {
    const final = await t.openai.chat.completions.stream({ model: 'anthropic/thinking', messages }).finalChatCompletion()
    expect(final.choices[0]!.message.content).toBe('Hi!')
    expect((final.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toBe('The user greets me.')
  })

  test('/v1/responses works over an Anthropic model (translated both ways)', async () => {
    const res = await t.openai.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'Hello' })
    expect(res.output_text).toBe(ANTHROPIC_TEXT)
    const final = await t.openai.responses.stream({ model: 'anthropic/claude-sonnet-4-5', input: 'Hello' }).finalResponse()
    expect(final.output_text).toBe(ANTHROPIC_TEXT)
    expect(final.usage).toMatchObject({ input_tokens: 125, output_tokens: 12 })
  })

  test('errors: 529 is a 503 naming the provider, 429 keeps Retry-After; a stream-borne error reaches the SDK', async () => {
    const err = await t.openai.chat.completions.create({ model: 'anthropic/overloaded', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.InternalServerError)
    expect(err.status).toBe(503)
    expect(err.error).toMatchObject({ provider: 'anthropic', message: 'Overloaded', code: 'overloaded_error' })
    const limited = await t.openai.chat.completions.create({ model: 'anthropic/rate-limited', messages }).catch((e) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect(limited.headers.get('retry-after')).toBe('7')

    const stream = await t.openai.chat.completions.create({ model: 'anthropic/stream-error', messages, stream: true })
    const streamErr = await streamError(stream)
    expect(streamErr).toBeInstanceOf(OpenAI.APIError)
    expect(String(streamErr.message)).toContain('Overloaded')
  })

  test('an upstream connection that breaks mid-stream ends with data: {"error"} and no [DONE]', async () => {
    const events = sseEvents(await (await post('/chat/completions', { model: 'anthropic/broken', messages, stream: true })).text())
    expect(events.every(([name]) => name === undefined)).toBe(true)
    expect(events.at(-1)![1]).toMatchObject({ error: { code: 'stream_interrupted', provider: 'anthropic' } })
    expect(events.some(([, d]) => d === '[DONE]')).toBe(false)
  })

  test('the model list comes from the upstream', async () => {
    const ids = []
    for await (const m of t.openai.models.list()) ids.push(m.id)
    expect(ids).toContain('anthropic/claude-sonnet-4-5')
    expect(t.anthropicMock.requests.some((r) => r.method === 'GET' && r.path === '/v1/models' && r.headers['anthropic-version'] === '2023-06-01')).toBe(true)
  })
})
