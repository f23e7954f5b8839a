import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { SseParser } from '../../../src/pipeline/sse.ts'
import type { AdapterCall } from '../../../src/providers/types.ts'
import { ANTHROPIC_TEXT, NATIVE_TOKEN_COUNT, startMockAnthropic, type MockAnthropic } from '../../../test/helpers/mock-anthropic-upstream.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { ANTHROPIC_CONVERSATION, CHAT_CONVERSATION, WEATHER_TOOL } from '../../../test/helpers/tool-conversation.ts'
import { ANTHROPIC_VERSION, anthropicAdapter, anthropicUpstreamError } from './adapter.ts'
import { chatToAnthropicRequest, DEFAULT_MAX_TOKENS } from './request.ts'
import { anthropicSchema, JSON_OBJECT_INSTRUCTION } from './structured-output.ts'
import { anthropicToChatCompletion, chatUsage, finishReason } from './response.ts'
import { AnthropicStreamTranslator, anthropicStreamToChat } from './stream.ts'

/** The translated request of a test that expects the translation to succeed. */
const toAnthropic = (body: Record<string, unknown>, model: string) => answered(chatToAnthropicRequest(body, model))

describe('chat response_format → Anthropic structured output', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }
  const request = (response_format: unknown, model = 'claude-sonnet-4-5') =>
    toAnthropic(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
        response_format,
      },
      model,
    )

  test('json_schema → output_config.format with the schema as given', () => {
    const req = request({ type: 'json_schema', json_schema: { name: 'x', strict: true, schema } })
    expect(req.output_config).toEqual({ format: { type: 'json_schema', schema } })
    expect(req.system).toBe('Be brief.')
    expect(req).not.toHaveProperty('response_format')
  })

  test('json_object, and json_schema without a schema → a JSON instruction after the system prompt', () => {
    for (const format of [{ type: 'json_object' }, { type: 'json_schema', json_schema: { name: 'x' } }]) {
      const req = request(format)
      expect(req.system).toBe(`Be brief.\n\n${JSON_OBJECT_INSTRUCTION}`)
      expect(req).not.toHaveProperty('output_config')
    }
  })

  test('text or nothing → neither', () => {
    for (const format of [undefined, { type: 'text' }]) {
      const req = request(format)
      expect(req.system).toBe('Be brief.')
      expect(req).not.toHaveProperty('output_config')
    }
  })

  test('the schema is prepared as Anthropic takes it: objects closed, bounds moved into descriptions, at any depth', () => {
    const client = {
      type: 'object',
      properties: {
        age: { type: 'integer', minimum: 0, maximum: 150, description: 'Years' },
        name: { type: 'string', maxLength: 20 },
        tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'object', properties: { k: { type: 'string' } } } },
        open: { type: 'object', additionalProperties: true },
      },
      $defs: { Pet: { type: 'object', properties: { n: { type: 'number', multipleOf: 2 } } } },
      anyOf: [{ type: 'object', properties: {} }],
    }
    expect(anthropicSchema(client)).toEqual({
      type: 'object',
      properties: {
        age: { type: 'integer', description: 'Years {minimum: 0, maximum: 150}' },
        name: { type: 'string', description: '{maxLength: 20}' },
        tags: { type: 'array', minItems: 1, items: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false }, description: '{maxItems: 3}' },
        open: { type: 'object', additionalProperties: true },
      },
      $defs: { Pet: { type: 'object', properties: { n: { type: 'number', description: '{multipleOf: 2}' } }, additionalProperties: false } },
      anyOf: [{ type: 'object', properties: {}, additionalProperties: false }],
      additionalProperties: false,
    })
    expect(anthropicSchema(schema)).toEqual(schema)
  })

  test('a schema for a model older than structured outputs is a 400 unsupported_parameter', () => {
    for (const model of ['claude-3-5-sonnet-20241022', 'claude-3-7-sonnet-latest', 'claude-opus-4-1-20250805', 'claude-sonnet-4-20250514', 'claude-opus-4-0']) {
      const error = chatToAnthropicRequest({ messages: [], response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }, model)
      expect(error).toBeInstanceOf(GatewayError)
      expect((error as GatewayError).status).toBe(400)
      expect((error as GatewayError).code).toBe('unsupported_parameter')
      expect((error as GatewayError).param).toBe('response_format')
    }
    expect(request({ type: 'json_object' }, 'claude-3-5-haiku-latest').system).toContain(JSON_OBJECT_INSTRUCTION)
    for (const model of ['claude-sonnet-4-5', 'claude-haiku-4-5-20251001', 'claude-opus-4-6', 'claude-sonnet-4-6']) {
      expect(request({ type: 'json_schema', json_schema: { name: 'x', schema } }, model).output_config).toBeDefined()
    }
  })
})

describe('chat → Messages request', () => {
  test('system extraction (developer text too), images, tool calls and merged tool results; sampling and tool settings', () => {
    const [system, ...rest] = CHAT_CONVERSATION
    const req = toAnthropic(
      {
        model: 'anthropic/claude',
        temperature: 1.7,
        stop: ['END', '  '],
        parallel_tool_calls: false,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        tools: [WEATHER_TOOL],
        messages: [system, { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] }, ...rest],
      },
      'claude-sonnet-4-5',
    )
    expect(req).toMatchObject({ model: 'claude-sonnet-4-5', system: 'Be brief.\n\nUse metric.', max_tokens: DEFAULT_MAX_TOKENS, temperature: 1, stop_sequences: ['END'] })
    expect(req.tool_choice).toEqual({ type: 'tool', name: 'get_weather', disable_parallel_tool_use: true })
    expect(req.tools).toEqual([{ name: 'get_weather', description: 'Weather', input_schema: WEATHER_TOOL.function.parameters }])
    expect(req.messages).toEqual(ANTHROPIC_CONVERSATION.messages)
  })

  test('tool result content given as text parts is sent as its text', () => {
    const messages = CHAT_CONVERSATION.map((m) =>
      m.tool_call_id === 'c2'
        ? {
            ...m,
            content: [
              { type: 'text', text: '25' },
              { type: 'text', text: 'C' },
            ],
          }
        : m,
    )
    expect(toAnthropic({ messages }, 'm').messages).toEqual(ANTHROPIC_CONVERSATION.messages)
  })

  test('PDFs (data URL or file part) become document blocks; audio and file ids are dropped', () => {
    const req = toAnthropic(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'data:application/pdf;base64,JVBER' } },
              { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,QUJD' } },
              { type: 'file', file: { file_id: 'file-123' } },
              { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
            ],
          },
        ],
      },
      'm',
    )
    expect(req.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'QUJD' } },
        ],
      },
    ])
  })

  test('max_completion_tokens wins; tool_choice values; reasoning effort becomes thinking', () => {
    expect(toAnthropic({ max_completion_tokens: 50, max_tokens: 10, messages: [] }, 'm').max_tokens).toBe(50)
    const tools = [{ type: 'function', function: { name: 'f' } }]
    expect(toAnthropic({ tools, tool_choice: 'required', messages: [] }, 'm').tool_choice).toEqual({ type: 'any' })
    expect(toAnthropic({ tools, tool_choice: 'none', messages: [] }, 'm').tool_choice).toEqual({ type: 'none' })
    const thinking = toAnthropic({ reasoning_effort: 'high', max_tokens: 1000, temperature: 0.2, messages: [] }, 'm')
    expect(thinking.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 })
    expect(thinking.max_tokens).toBeGreaterThan(4096)
    expect(thinking.temperature).toBeUndefined()
  })
})

describe('Messages → chat', () => {
  const cases: [string, string][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['something_new', 'stop'],
  ]
  for (const [anthropic, openai] of cases) test(`stop_reason ${anthropic} → ${openai}`, () => expect(finishReason(anthropic)).toBe(openai))

  test('usage: prompt includes cache reads and writes; total = prompt + completion', () => {
    expect(chatUsage({ input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 12 })).toEqual({
      prompt_tokens: 125,
      completion_tokens: 12,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 0 },
    })
    expect(chatUsage({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: null })).toMatchObject({ prompt_tokens: 3, total_tokens: 7 })
  })

  test('text, thinking and tool_use blocks', () => {
    const c = anthropicToChatCompletion({
      id: 'msg_1',
      model: 'claude',
      stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
        { type: 'tool_use', id: 't1', name: 'f', input: { x: 1 } },
      ],
      usage: {},
    }) as any
    expect(c.choices[0].message).toEqual({
      role: 'assistant',
      content: 'AB',
      refusal: null,
      reasoning_content: 'hmm',
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
    })
    expect(c.choices[0].finish_reason).toBe('tool_calls')
  })
})

describe('stream state machine', () => {
  const ev = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) })
  const chunks = (t: AnthropicStreamTranslator, events: { event: string; data: string }[]) => {
    const parser = new SseParser()
    const text = events
      .flatMap((e) => t.translate(e))
      .map((b) => new TextDecoder().decode(b))
      .join('')
    return parser.push(new TextEncoder().encode(text)).map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data)))
  }

  test('role, text, tool call fragments with stable index, finish, usage chunk, [DONE]; pings ignored', () => {
    const out = chunks(new AnthropicStreamTranslator(true), [
      ev('message_start', { type: 'message_start', message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 10, cache_read_input_tokens: 2, output_tokens: 1 } } }),
      ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ev('ping', { type: 'ping' }),
      ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      ev('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} } }),
      ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a"' } }),
      ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ':1}' } }),
      ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } }),
      ev('message_stop', { type: 'message_stop' }),
    ]) as any[]
    expect(out[0].choices[0].delta).toEqual({ role: 'assistant', content: '' })
    expect(out[1].choices[0].delta).toEqual({ content: 'Hi' })
    expect(out[2].choices[0].delta.tool_calls[0]).toEqual({ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '' } })
    expect(out[3].choices[0].delta.tool_calls[0]).toEqual({ index: 0, function: { arguments: '{"a"' } })
    expect(out[5].choices[0].finish_reason).toBe('tool_calls')
    expect(out[6]).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } })
    expect(out[7]).toBe('[DONE]')
    expect(new Set(out.slice(0, 6).map((c) => c.id))).toEqual(new Set(['msg_1']))
  })

  test('an error event becomes a data error frame and ends the stream', () => {
    const t = new AnthropicStreamTranslator(false)
    const out = chunks(t, [ev('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })]) as any[]
    expect(out[0]).toEqual({ error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' } })
    expect(t.done).toBe(true)
  })
})

describe('usage table, cell by cell', () => {
  const usage = chatUsage({
    input_tokens: 20,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 5,
    output_tokens: 12,
    output_tokens_details: { thinking_tokens: 4 },
  }) as any
  test('prompt_tokens = input + cache reads + cache writes', () => expect(usage.prompt_tokens).toBe(125))
  test('prompt_tokens_details.cached_tokens = cache reads', () => expect(usage.prompt_tokens_details.cached_tokens).toBe(100))
  test('prompt_tokens_details.cache_write_tokens = cache writes', () => expect(usage.prompt_tokens_details.cache_write_tokens).toBe(5))
  test('completion_tokens = output_tokens', () => expect(usage.completion_tokens).toBe(12))
  test('completion_tokens_details.reasoning_tokens = thinking tokens', () => expect(usage.completion_tokens_details.reasoning_tokens).toBe(4))
  test('total_tokens = prompt + completion', () => expect(usage.total_tokens).toBe(137))
})

describe('more stream cases', () => {
  const ev = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) })
  const decode = (frames: Uint8Array[]) => frames.map((f) => new TextDecoder().decode(f)).join('')
  const start = ev('message_start', { type: 'message_start', message: { id: 'msg_2', model: 'claude', usage: { input_tokens: 3, output_tokens: 1 } } })

  test('thinking deltas become reasoning_content; no usage chunk unless asked for; message_stop alone still finishes', () => {
    const t = new AnthropicStreamTranslator(false)
    const text = decode([
      ...t.translate(start),
      ...t.translate(ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm' } })),
      ...t.translate(ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } })),
      ...t.translate(ev('message_stop', { type: 'message_stop' })),
    ])
    const chunks = text
      .trim()
      .split('\n\n')
      .map((f) => f.slice(6))
    expect(JSON.parse(chunks[1]!).choices[0].delta).toEqual({ reasoning_content: 'Hm' })
    expect(JSON.parse(chunks[2]!).choices[0].finish_reason).toBe('stop')
    expect(chunks[3]).toBe('[DONE]')
    expect(text).not.toContain('"choices":[]')
    expect(text).not.toContain('event:')
  })

  test('a stream that ends without message_stop ends with an error frame', async () => {
    const body = new Response(`event: message_start\ndata: ${start.data}\n\n`).body!
    const text = await new Response(anthropicStreamToChat(body, true)).text()
    expect(text.trim().split('\n\n').at(-1)).toContain('"code":"stream_interrupted"')
    expect(text).not.toContain('[DONE]')
  })

  test('message_delta input and cache counts (newer API versions) update the usage chunk', () => {
    const t = new AnthropicStreamTranslator(true)
    t.translate(start)
    t.translate(
      ev('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: null, output_tokens: 6 },
      }),
    )
    const text = decode(t.translate(ev('message_stop', { type: 'message_stop' })))
    expect(JSON.parse(text.split('\n\n')[0]!.slice(6)).usage).toMatchObject({
      prompt_tokens: 14,
      completion_tokens: 6,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 },
    })
  })
})

describe('upstream errors', () => {
  const call = { provider: { name: 'anthropic' }, limits: { secrets: ['sk-ant-secret-1'] } } as unknown as AdapterCall
  const read = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    anthropicUpstreamError(call)(status, body, typeof body === 'string' ? body : JSON.stringify(body), new Headers(headers))
  const err = (type: string, message: string) => ({ type: 'error', error: { type, message } })

  test('529 overloaded is a 503 provider_error with the Anthropic type as code', () => {
    expect(read(529, err('overloaded_error', 'Overloaded')).toBody()).toEqual({
      type: 'provider_error',
      message: 'Overloaded',
      code: 'overloaded_error',
      param: null,
      provider: 'anthropic',
      status_code: 503,
    })
  })
  test('429 keeps its status and Retry-After', () => {
    const e = read(429, err('rate_limit_error', 'Slow down'), { 'retry-after': '7' })
    expect([e.status, e.type, e.code, e.headers['retry-after']]).toEqual([429, 'rate_limit_error', 'rate_limit_error', '7'])
  })
  test('400 and 404 keep their status and message', () => {
    expect(read(400, err('invalid_request_error', 'max_tokens: Field required'))).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      message: 'max_tokens: Field required',
      code: 'invalid_request_error',
    })
    expect(read(404, err('not_found_error', 'model: x'))).toMatchObject({ status: 404, type: 'not_found_error' })
  })
  test('a refused gateway key is not the client’s 401, and the key never leaks', () => {
    const e = read(401, err('authentication_error', 'invalid x-api-key sk-ant-secret-1'))
    expect(e.status).toBe(502)
    expect(e.message).not.toContain('sk-ant-secret-1')
  })
  test('a non-JSON body still yields a message', () => {
    expect(read(502, '<html>bad gateway</html>')).toMatchObject({ status: 502, message: '<html>bad gateway</html>' })
  })
})

describe('native Messages calls', () => {
  let mock: MockAnthropic
  beforeAll(() => {
    mock = startMockAnthropic('sk-ant-test')
  })
  afterAll(() => mock.stop())

  const nativeCall = (body: Record<string, unknown>, headers: Record<string, string> = {}): AdapterCall => {
    const ctx = makeContext({ endpoint: 'messages', body, headers })
    return {
      provider: { name: 'anthropic', type: 'anthropic', baseUrl: mock.url, apiKey: 'sk-ant-test', staticModels: [], nativeResponses: false },
      target: { providerName: 'anthropic', providerType: 'anthropic', model: 'claude-sonnet-4-5', selector: 'anthropic/claude-sonnet-4-5' },
      body: { ...body, model: 'claude-sonnet-4-5' },
      ctx,
      attemptKind: 'primary',
      limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
    }
  }

  test('the client body goes out as sent; the client’s version and beta headers are kept, its credentials are not', async () => {
    const body = { model: 'anthropic/claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], cache_control: { type: 'ephemeral' } }
    const res = answered(
      await anthropicAdapter.messages!(nativeCall(body, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-1m-2025-08-07', 'x-api-key': 'gateway-key' })),
    )
    expect(((await res.json()) as any).content[0].text).toBe(ANTHROPIC_TEXT)
    const sent = mock.requests.at(-1)!
    expect(sent.body).toEqual({ ...body, model: 'claude-sonnet-4-5' })
    expect(sent.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-1m-2025-08-07' })
  })

  test('without client headers the default version is sent; count_tokens goes to its own path', async () => {
    const res = answered(await anthropicAdapter.countMessageTokens!(nativeCall({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })))
    expect(await res.json()).toEqual({ input_tokens: NATIVE_TOKEN_COUNT })
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/messages/count_tokens', headers: { 'anthropic-version': ANTHROPIC_VERSION } })
    expect(mock.requests.at(-1)!.headers['anthropic-beta']).toBeUndefined()
  })

  test('a native stream passes through byte for byte, event lines included', async () => {
    const res = answered(await anthropicAdapter.messages!(nativeCall({ model: 'x', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] })))
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const text = await res.text()
    expect(text).toStartWith('event: message_start\n')
    expect(text).toContain('event: ping\n')
    expect(text.trim().endsWith('data: {"type":"message_stop"}')).toBe(true)
  })

  test('upstream errors are returned as GatewayErrors', async () => {
    const error = await anthropicAdapter.messages!({ ...nativeCall({ max_tokens: 5, messages: [] }), body: { model: 'overloaded', max_tokens: 5, messages: [] } })
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 503, code: 'overloaded_error' })
  })
})
