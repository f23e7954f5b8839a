/**
 * The Anthropic Messages API served by the gateway (`/v1/messages`, `/v1/messages/count_tokens`), end to end with
 * the official `@anthropic-ai/sdk`: natively on an Anthropic upstream (the Anthropic mock) and translated onto
 * chat for any other provider (the OpenAI mock), errors in Anthropic's shape either way.
 */
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, NATIVE_TOKEN_COUNT } from '../helpers/mock-anthropic-upstream.ts'
import { TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { sseEvents } from '../helpers/sse-events.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  families: ['openai', 'anthropic'],
  env: {
    // What Claude Code does: ask for a Claude name the gateway maps to another provider's model.
    VIRTUAL_MODELS: JSON.stringify([{ source: 'claude-on-gpt', target: 'openai/gpt-4o' }]),
    LOGGING_LOG_BODIES: 'true',
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
  },
})

const messages = [{ role: 'user' as const, content: 'Hello' }]
const anthropicTools = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }]

async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': t.master }): Promise<Response> {
  return fetch(`${t.gw.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
}

describe('Anthropic SDK → /v1/messages on an Anthropic upstream (native)', () => {
  test('messages.create is forwarded as sent (model replaced, beta header kept)', async () => {
    const msg = await t.claude.messages.create(
      { model: 'anthropic/claude-sonnet-4-5', max_tokens: 100, system: [{ type: 'text', text: 'Be kind.', cache_control: { type: 'ephemeral' } }], messages },
      { headers: { 'anthropic-beta': 'fine-grained-tool-streaming-2025-05-14' } },
    )
    expect(msg.content as unknown).toEqual([{ type: 'text', text: ANTHROPIC_TEXT }])
    expect(msg.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 100 })
    const sent = t.anthropicMock.requests.at(-1)!
    expect(sent.body).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 100, system: [{ type: 'text', text: 'Be kind.', cache_control: { type: 'ephemeral' } }], messages })
    expect(sent.headers['anthropic-beta']).toBe('fine-grained-tool-streaming-2025-05-14')
    expect(sent.headers['x-api-key']).toBe('sk-ant-test')
  })

  test('messages.stream().finalMessage() with tool_use; the stream is audited as the folded message', async () => {
    const requestId = crypto.randomUUID()
    const stream = t.claude.messages.stream({ model: 'anthropic/tool', max_tokens: 100, messages, tools: anthropicTools }, { headers: { 'x-request-id': requestId } })
    const final = await stream.finalMessage()
    expect(final.stop_reason).toBe('tool_use')
    expect(final.content[1] as unknown).toEqual({ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } })
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ path: '/v1/messages', status_code: 200, stream: true, resolved_model: 'anthropic/tool' })
    expect(entry.data.response_body).toMatchObject({
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', input: { city: 'Paris' } },
      ],
    })
    expect(entry.usage).toMatchObject({ input_tokens: 125, output_tokens: 12, cached_input_tokens: 100 })
  })

  test('the beta client works and its betas reach the upstream; so does POST /v1/messages?beta=true (as Claude Code calls it)', async () => {
    const msg = await t.claude.beta.messages.create({ model: 'anthropic/claude-sonnet-4-5', max_tokens: 10, messages, betas: ['context-1m-2025-08-07'] })
    expect(msg.content[0]).toMatchObject({ type: 'text', text: ANTHROPIC_TEXT })
    expect(t.anthropicMock.requests.at(-1)!.headers['anthropic-beta']).toBe('context-1m-2025-08-07')
    const res = await post(
      '/messages?beta=true',
      { model: 'anthropic/claude-sonnet-4-5', max_tokens: 10, messages },
      { authorization: `Bearer ${t.master}`, 'anthropic-version': '2023-06-01' },
    )
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: ANTHROPIC_TEXT }] })
  })

  test('count_tokens is answered by the upstream', async () => {
    const { data: count, response } = await t.claude.messages.countTokens({ model: 'anthropic/claude-sonnet-4-5', messages }).withResponse()
    expect(count.input_tokens).toBe(NATIVE_TOKEN_COUNT)
    expect(response.headers.get('x-gateway-estimated')).toBeNull()
    expect(t.anthropicMock.requests.at(-1)).toMatchObject({ path: '/v1/messages/count_tokens', body: { model: 'claude-sonnet-4-5', messages } })
  })

  test('upstream errors keep their class: 529 → 503 overloaded_error, 404 → NotFoundError; a stream error event raises', async () => {
    const overloaded = await t.claude.messages.create({ model: 'anthropic/overloaded', max_tokens: 10, messages }).catch((e) => e)
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError)
    expect(overloaded.status).toBe(503)
    expect(overloaded.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded', provider: 'anthropic', code: 'overloaded_error' } })
    const missing = await t.claude.messages.create({ model: 'anthropic/missing-model', max_tokens: 10, messages }).catch((e) => e)
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError)
    const streamErr = await t.claude.messages
      .stream({ model: 'anthropic/stream-error', max_tokens: 10, messages })
      .finalMessage()
      .catch((e) => e)
    expect(streamErr).toBeInstanceOf(Anthropic.APIError)
    expect(streamErr.error).toMatchObject({ error: { type: 'overloaded_error' } })
  })

  test('a native stream whose connection breaks ends with the gateway’s event: error', async () => {
    const res = await post('/messages', { model: 'anthropic/broken', max_tokens: 10, stream: true, messages })
    const events = sseEvents(await res.text())
    expect(events[0]![0]).toBe('message_start')
    expect(events.at(-1)).toEqual(['error', { type: 'error', error: expect.objectContaining({ type: 'api_error', code: 'stream_interrupted', provider: 'anthropic' }) }])
    const streamErr = await t.claude.messages
      .stream({ model: 'anthropic/broken', max_tokens: 10, messages })
      .finalMessage()
      .catch((e) => e)
    expect(streamErr).toBeInstanceOf(Anthropic.APIError)
  })
})

describe('Anthropic SDK → /v1/messages on an OpenAI upstream (translated)', () => {
  test('messages.create: the chat request and the message answer', async () => {
    const msg = await t.claude.messages.create({
      model: 'claude-on-gpt',
      max_tokens: 200,
      system: 'Be brief.',
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'echo:hello there' }] }],
    })
    // `model` is the upstream's model id on every path (docs/clients.md), not the virtual name asked for.
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', model: 'gpt-4o', stop_reason: 'end_turn', content: [{ type: 'text', text: 'hello there' }] })
    expect(msg.id).toStartWith('msg_')
    // Mock usage: 12 prompt tokens of which 2 cached.
    expect(msg.usage).toMatchObject({ input_tokens: 10, cache_read_input_tokens: 2, output_tokens: 5 })
    const sent = t.openaiMock.requests.at(-1)!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.body).toMatchObject({
      model: 'gpt-4o',
      max_completion_tokens: 200,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'echo:hello there' },
      ],
    })
    expect(sent.body.max_tokens).toBeUndefined()
  })

  test('messages.stream().finalMessage(): split UTF-8 text arrives whole, usage in message_delta', async () => {
    const stream = t.claude.messages.stream({ model: 'openai/gpt-4o', max_tokens: 100, messages })
    let text = ''
    stream.on('text', (t) => (text += t))
    const final = await stream.finalMessage()
    expect(text).toBe(TRICKY_TEXT)
    expect(final.content as unknown).toEqual([{ type: 'text', text: TRICKY_TEXT }])
    expect(final.stop_reason).toBe('end_turn')
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: Array.from(TRICKY_TEXT).length })
    expect(t.openaiMock.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  test('raw stream: every event has its event: line and the data type matches it', async () => {
    const res = await post('/messages', { model: 'openai/gpt-4o', max_tokens: 10, stream: true, messages })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = sseEvents(await res.text())
    for (const [name, data] of events) expect(data.type).toBe(name)
    expect(events.map(([name]) => name)).toEqual([
      'message_start',
      'content_block_start',
      ...Array.from(TRICKY_TEXT).map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
  })

  test('tool_use (plain and streamed) and the tool_result turn', async () => {
    const msg = await t.claude.messages.create({
      model: 'openai/tools',
      max_tokens: 100,
      messages,
      tools: anthropicTools,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    })
    expect(msg.stop_reason).toBe('tool_use')
    expect(msg.content as unknown).toEqual([{ type: 'tool_use', id: 'call_weather1', name: 'get_weather', input: { city: 'Paris' } }])
    expect(t.openaiMock.requests.at(-1)!.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: anthropicTools[0]!.input_schema } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
    })

    const final = await t.claude.messages.stream({ model: 'openai/tools', max_tokens: 100, messages, tools: anthropicTools }).finalMessage()
    expect(final.stop_reason).toBe('tool_use')
    expect(final.content as unknown).toEqual([
      { type: 'tool_use', id: 'call_weather1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_time2', name: 'get_time', input: { tz: 'CET' } },
    ])

    await t.claude.messages.create({
      model: 'openai/gpt-4o',
      max_tokens: 100,
      tools: anthropicTools,
      messages: [
        ...messages,
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_weather1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_weather1', content: [{ type: 'text', text: '18C' }] },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
    })
    expect(t.openaiMock.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_weather1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_weather1', content: '18C' },
      { role: 'user', content: 'And tomorrow?' },
    ])
  })

  test('count_tokens is estimated by the gateway', async () => {
    const { data: count, response } = await t.claude.messages
      .countTokens({ model: 'openai/gpt-4o', system: 'Be brief.', messages: [{ role: 'user', content: 'How many tokens is this sentence?' }] })
      .withResponse()
    expect(response.headers.get('x-gateway-estimated')).toBe('true')
    expect(count.input_tokens).toBeGreaterThan(8)
    expect(count.input_tokens).toBeLessThan(30)
    expect(t.openaiMock.requests.at(-1)!.path).not.toContain('count_tokens')
  })

  test('upstream errors in Anthropic shape: 429 → RateLimitError; a mid-stream error → event: error', async () => {
    const limited = await t.claude.messages.create({ model: 'openai/error-429', max_tokens: 10, messages }).catch((e) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
    expect(limited.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', provider: 'openai' } })

    const res = await post('/messages', { model: 'openai/stream-error-event', max_tokens: 10, stream: true, messages })
    const events = sseEvents(await res.text())
    expect(events.at(-1)).toEqual([
      'error',
      { type: 'error', error: expect.objectContaining({ type: 'api_error', message: 'The server had an error while processing your request.' }) },
    ])
    const streamErr = await t.claude.messages
      .stream({ model: 'openai/broken-stream', max_tokens: 10, messages })
      .finalMessage()
      .catch((e) => e)
    expect(streamErr).toBeInstanceOf(Anthropic.APIError)
    expect(streamErr.error).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'stream_interrupted' } })
  })
})

describe('/v1/messages gateway errors in Anthropic shape', () => {
  test('a wrong key is an AuthenticationError (x-api-key and bearer both read)', async () => {
    const wrong = new Anthropic({ apiKey: 'not-a-key', baseURL: t.gw.url, maxRetries: 0 })
    const err = await wrong.messages.create({ model: 'openai/gpt-4o', max_tokens: 10, messages }).catch((e) => e)
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError)
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'authentication_error', code: 'invalid_api_key', status_code: 401 } })
    const bearer = new Anthropic({ authToken: t.master, apiKey: null, baseURL: t.gw.url, maxRetries: 0 })
    const ok = await bearer.messages.create({ model: 'openai/gpt-4o', max_tokens: 10, messages })
    expect(ok.type).toBe('message')
  })

  test('an unknown model is a NotFoundError', async () => {
    const err = await t.claude.messages.create({ model: 'no-such-model', max_tokens: 10, messages }).catch((e) => e)
    expect(err).toBeInstanceOf(Anthropic.NotFoundError)
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'not_found_error', code: 'model_not_found' } })
    const count = await t.claude.messages.countTokens({ model: 'no-such-model', messages }).catch((e) => e)
    expect(count).toBeInstanceOf(Anthropic.NotFoundError)
  })

  test('a request without max_tokens is a BadRequestError naming the field', async () => {
    const res = await post('/messages', { model: 'openai/gpt-4o', messages })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param: 'max_tokens', message: 'max_tokens: Field required' } })
  })

  test('a system message the chat translation refuses: an Anthropic-shaped 400 and an audit entry', async () => {
    const requestId = crypto.randomUUID()
    const system = { role: 'system', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }
    const res = await post('/messages', { model: 'openai/gpt-4o', max_tokens: 10, messages: [...messages, system] }, { 'x-api-key': t.master, 'x-request-id': requestId })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param: 'messages.1.content.0.type', status_code: 400 } })
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ path: '/v1/messages', status_code: 400, error_type: 'invalid_request_error' })
  })

  test('chat errors keep the OpenAI shape', async () => {
    const res = await post('/chat/completions', { model: 'no-such-model', messages })
    const body = await res.json()
    expect(body.type).toBeUndefined()
    expect(body.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found' })
  })
})

describe('keep-alives on a quiet native stream', () => {
  let quiet: RunningGateway
  beforeAll(async () => {
    quiet = await startGateway({ GATEWAY_MASTER_KEY: t.master, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: t.anthropicMock.url, SSE_KEEPALIVE_SECONDS: '1' })
  })
  afterAll(() => quiet.stop())

  const rawStream = async (model: string) => {
    const res = await fetch(`${quiet.baseURL}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.master },
      body: JSON.stringify({ model, max_tokens: 10, stream: true, messages }),
    })
    return res.text()
  }

  test('a pause between two events gets an SSE comment', async () => {
    const raw = await rawStream('anthropic/pause-between-events')
    expect(raw).toContain('}   \n\n: keep-alive\n\nevent: content_block_start')
  })

  test('a pause inside an event gets none (it would split the event), and the stream stays readable', async () => {
    const raw = await rawStream('anthropic/pause-inside-event')
    expect(raw).not.toContain(': keep-alive')
    expect(sseEvents(raw).map(([name]) => name)).toContain('message_stop')
    const quietClient = new Anthropic({ apiKey: t.master, baseURL: quiet.url, maxRetries: 0 })
    const final = await quietClient.messages.stream({ model: 'anthropic/pause-inside-event', max_tokens: 10, messages }).finalMessage()
    expect(final.content as unknown).toEqual([{ type: 'text', text: ANTHROPIC_TEXT }])
  })
})
