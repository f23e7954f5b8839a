import { describe, expect, test } from 'bun:test'
import { GatewayError } from '../../errors/gateway-error.ts'
import { SseParser } from '../../pipeline/sse.ts'
import { endpoint } from '../endpoints.ts'
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { chatStreamToMessages } from './stream.ts'
import { MessagesStreamFold } from './stream-codec.ts'
import { chatChunk, chatSseBody, dataFrameText } from '../../../test/helpers/chat-stream-body.ts'

type Json = Record<string, any>
const encoder = new TextEncoder()
const decoder = new TextDecoder()

async function events(stream: ReadableStream<Uint8Array>): Promise<[string | undefined, Json][]> {
  const text = await new Response(stream).text()
  return new SseParser().push(encoder.encode(text)).map((e) => [e.event, JSON.parse(e.data)])
}

const TOOL_STREAM = [
  dataFrameText(chatChunk({ role: 'assistant', content: null })),
  dataFrameText(chatChunk({ content: 'Hé ' })),
  dataFrameText(chatChunk({ content: '🙂' })),
  dataFrameText(chatChunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] })),
  dataFrameText(chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })),
  dataFrameText(chatChunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })),
  dataFrameText(chatChunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } }] })),
  dataFrameText(chatChunk({}, 'tool_calls')),
  dataFrameText({ ...chatChunk({}), choices: [], usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39, prompt_tokens_details: { cached_tokens: 10 } } }),
  dataFrameText('[DONE]'),
]

describe('chat chunks → Anthropic events', () => {
  test('the full sequence: start, text block, one block per tool call, delta with stop reason and usage, stop', async () => {
    const out = await events(chatStreamToMessages(chatSseBody(TOOL_STREAM), 'claude-x'))
    for (const [name, payload] of out) expect(payload.type).toBe(name!)
    expect(out.map(([, p]) => p)).toEqual([
      {
        type: 'message_start',
        message: {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          role: 'assistant',
          model: 'claude-x',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hé ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '🙂' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_b', name: 'get_time', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 },
      },
      { type: 'message_stop' },
    ])
  })

  test('bytes cut at every 3rd byte (inside lines and characters) give the same events', async () => {
    const whole = await events(chatStreamToMessages(chatSseBody(TOOL_STREAM), 'm'))
    const split = await events(chatStreamToMessages(chatSseBody(TOOL_STREAM, { pieceSize: 3 }), 'm'))
    const withoutIds = (list: [string | undefined, Json][]) => list.slice(1)
    expect(withoutIds(split)).toEqual(withoutIds(whole))
  })

  test('every frame has an event: line; a stream without [DONE] still ends once the finish reason came', async () => {
    const text = await new Response(chatStreamToMessages(chatSseBody([dataFrameText(chatChunk({ content: 'x' })), dataFrameText(chatChunk({}, 'length'))]), 'm')).text()
    for (const frame of text.trim().split('\n\n')) expect(frame).toMatch(/^event: [a-z_]+\ndata: \{.*\}$/)
    expect(text).toContain('"stop_reason":"max_tokens"')
    expect(text.trim().endsWith('data: {"type":"message_stop"}')).toBe(true)
  })

  test('a refusal streams as text and stops with refusal', async () => {
    const out = await events(
      chatStreamToMessages(chatSseBody([dataFrameText(chatChunk({ role: 'assistant', refusal: 'No.' })), dataFrameText(chatChunk({}, 'stop')), dataFrameText('[DONE]')]), 'm'),
    )
    expect(out[2]![1]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'No.' } })
    expect(out.find(([n]) => n === 'message_delta')![1].delta.stop_reason).toBe('refusal')
  })

  test('data: {"error"} in the chat stream becomes event: error and ends the stream', async () => {
    const frames = [
      dataFrameText(chatChunk({ content: 'par' })),
      dataFrameText({ error: { message: 'Boom', type: 'server_error', code: null } }),
      dataFrameText(chatChunk({ content: 'never' })),
    ]
    const out = await events(chatStreamToMessages(chatSseBody(frames), 'm'))
    expect(out.at(-1)).toEqual(['error', { type: 'error', error: { type: 'api_error', message: 'Boom', code: 'server_error', param: null, provider: '', status_code: 502 } }])
    expect(out.some(([n]) => n === 'message_stop')).toBe(false)
    expect(JSON.stringify(out)).not.toContain('never')
  })

  test('an upstream failure (a GatewayError breaking the stream) keeps its status as the error type', async () => {
    const timeout = new GatewayError({ status: 504, type: 'provider_error', code: 'upstream_timeout', message: 'no data', provider: 'openai' })
    const out = await events(chatStreamToMessages(chatSseBody([dataFrameText(chatChunk({ content: 'a' }))], { failWith: timeout }), 'm'))
    expect(out.at(-1)).toEqual(['error', { type: 'error', error: expect.objectContaining({ type: 'timeout_error', code: 'upstream_timeout', provider: 'openai' }) }])
  })

  test('a stream that ends before a finish reason ends with an error, never silently', async () => {
    const out = await events(chatStreamToMessages(chatSseBody([dataFrameText(chatChunk({ content: 'a' }))]), 'm'))
    expect(out.at(-1)![1]).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'stream_interrupted' } })
    const early = await events(chatStreamToMessages(chatSseBody([dataFrameText(chatChunk({ content: 'a' })), dataFrameText('[DONE]')]), 'm'))
    expect(early.at(-1)![1]).toMatchObject({ type: 'error', error: { code: 'stream_interrupted' } })
  })
})

/** A native Anthropic stream as the pump's SSE parser hands it to the fold. */
const NATIVE: [string, Json][] = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 1 },
      },
    },
  ],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm.' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
  ['ping', { type: 'ping' }],
  ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi ' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'there' } }],
  ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }],
  ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '1}' } }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30, input_tokens: null } }],
  ['message_stop', { type: 'message_stop' }],
]
const feed = (fold: { add(e: { event?: string; data: string }): void }, list: [string, Json][]) => {
  for (const [event, payload] of list) fold.add({ event, data: JSON.stringify(payload) })
}

describe('messages stream codec', () => {
  test('/v1/messages uses it; other endpoints do not', () => {
    expect(endpoint('messages').api.streamCodec!.createFold()).toBeInstanceOf(MessagesStreamFold)
    expect(endpoint('chat.completions').api.streamCodec!.createFold()).not.toBeInstanceOf(MessagesStreamFold)
  })

  test('folds the events into the message they add up to; usage is cumulative, nulls keep earlier values', () => {
    const fold = new MessagesStreamFold()
    feed(fold, NATIVE)
    expect(fold.result()).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'thinking', thinking: 'Hm.', signature: 'sig' },
        { type: 'text', text: 'Hi there' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 30 },
    })
    expect(fold.error()).toBeUndefined()
  })

  test('usage in OpenAI terms: prompt = input + cache reads + cache writes, total = prompt + completion', () => {
    const fold = new MessagesStreamFold(true)
    feed(fold, NATIVE)
    expect(usageFromOpenAI(fold.usage())).toEqual({
      prompt_tokens: 125,
      completion_tokens: 30,
      total_tokens: 155,
      cached_tokens: 100,
      cache_write_tokens: 5,
      reasoning_tokens: 0,
      estimated: false,
    })
  })

  test('usage-only folds skip content events', () => {
    const fold = new MessagesStreamFold(true)
    feed(fold, NATIVE)
    expect((fold.result() as Json).content).toEqual([])
  })

  test('an error event is the fold error (type as code); the error frame is an Anthropic error event', () => {
    const fold = new MessagesStreamFold(true)
    feed(fold, [NATIVE[0]!, ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]])
    expect(fold.error()).toEqual({ type: 'overloaded_error', message: 'Overloaded', code: 'overloaded_error' })
    const frame = decoder.decode(
      endpoint('messages').api.streamCodec!.errorFrame(new GatewayError({ status: 504, type: 'provider_error', message: 'late', code: 'upstream_timeout' }), fold),
    )
    expect(frame).toStartWith('event: error\ndata: ')
    expect(JSON.parse(frame.split('data: ')[1]!)).toEqual({
      type: 'error',
      error: { type: 'timeout_error', message: 'late', code: 'upstream_timeout', param: null, provider: '', status_code: 504 },
    })
  })
})

test('the fold of an upstream stream with hostile content block indexes (5×10⁷) is made at once, blocks in index order', () => {
  const fold = new MessagesStreamFold()
  const event = (type: string, payload: Record<string, unknown>) => fold.add({ event: type, data: JSON.stringify({ type, ...payload }) })
  const started = performance.now()
  event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 3 } } })
  event('content_block_start', { index: 50_000_000, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } })
  event('content_block_delta', { index: 50_000_000, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } })
  event('content_block_start', { index: 4_294_967_294, content_block: { type: 'text', text: '' } })
  event('content_block_delta', { index: 4_294_967_294, delta: { type: 'text_delta', text: 'done' } })
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hi' } })
  const content = (fold.result() as { content: unknown[] }).content
  expect(performance.now() - started).toBeLessThan(500)
  expect(content).toEqual([
    { type: 'text', text: 'hi' },
    { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
    { type: 'text', text: 'done' },
  ])
})
