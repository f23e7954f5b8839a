import { describe, expect, test } from 'bun:test'
import { SseParser } from '../../../src/pipeline/sse.ts'
import { chatToAnthropicRequest, DEFAULT_MAX_TOKENS } from './request.ts'
import { anthropicToChatCompletion, chatUsage, finishReason } from './response.ts'
import { AnthropicStreamTranslator } from './stream.ts'

describe('chat → Messages request', () => {
  test('system extraction, images, tool calls and merged tool results', () => {
    const req = chatToAnthropicRequest(
      {
        model: 'anthropic/claude',
        temperature: 1.7,
        stop: ['END', '  '],
        parallel_tool_calls: false,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
          { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: '18C' },
          { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: '25C' }] },
          { role: 'user', content: 'Thanks' },
        ],
      },
      'claude-sonnet-4-5',
    )
    expect(req).toMatchObject({ model: 'claude-sonnet-4-5', system: 'Be brief.\n\nUse metric.', max_tokens: DEFAULT_MAX_TOKENS, temperature: 1, stop_sequences: ['END'] })
    expect(req.tool_choice).toEqual({ type: 'tool', name: 'get_weather', disable_parallel_tool_use: true })
    expect(req.tools).toEqual([{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }])
    expect(req.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Paris' } }, { type: 'tool_use', id: 'c2', name: 'get_weather', input: { city: 'Rome' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: '18C' }, { type: 'tool_result', tool_use_id: 'c2', content: '25C' }, { type: 'text', text: 'Thanks' }] },
    ])
  })

  test('max_completion_tokens wins; tool_choice values; reasoning effort becomes thinking', () => {
    expect(chatToAnthropicRequest({ max_completion_tokens: 50, max_tokens: 10, messages: [] }, 'm').max_tokens).toBe(50)
    const tools = [{ type: 'function', function: { name: 'f' } }]
    expect(chatToAnthropicRequest({ tools, tool_choice: 'required', messages: [] }, 'm').tool_choice).toEqual({ type: 'any' })
    expect(chatToAnthropicRequest({ tools, tool_choice: 'none', messages: [] }, 'm').tool_choice).toEqual({ type: 'none' })
    const thinking = chatToAnthropicRequest({ reasoning_effort: 'high', max_tokens: 1000, temperature: 0.2, messages: [] }, 'm')
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
    const c = anthropicToChatCompletion({ id: 'msg_1', model: 'claude', stop_reason: 'tool_use', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'A' }, { type: 'text', text: 'B' }, { type: 'tool_use', id: 't1', name: 'f', input: { x: 1 } }], usage: {} }) as any
    expect(c.choices[0].message).toEqual({ role: 'assistant', content: 'AB', refusal: null, reasoning_content: 'hmm', tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] })
    expect(c.choices[0].finish_reason).toBe('tool_calls')
  })
})

describe('stream state machine', () => {
  const ev = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) })
  const chunks = (t: AnthropicStreamTranslator, events: { event: string; data: string }[]) => {
    const parser = new SseParser()
    const text = events.flatMap((e) => t.translate(e)).map((b) => new TextDecoder().decode(b)).join('')
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
