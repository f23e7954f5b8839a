import { beforeAll, describe, expect, test } from 'bun:test'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { estimateInputTokens } from './count-tokens.ts'
import { anthropicErrorBody, anthropicErrorType } from './errors.ts'
import { messagesRequestToChat } from './request.ts'
import { anthropicUsage, chatCompletionToMessage, stopReason, toolInput } from './response.ts'
import { loadCountThread } from '../../tokens/count-thread.ts'
import { answered } from '../../../test/helpers/plugin-harness.ts'
import { ANTHROPIC_CONVERSATION, CHAT_CONVERSATION } from '../../../test/helpers/tool-conversation.ts'

const toChat = (body: Record<string, unknown>) => answered(messagesRequestToChat(body))

// The tokenizer thread loads its tables once (seconds on a loaded machine); counts below then answer at once.
beforeAll(() => loadCountThread(), 30_000)

describe('Messages request → chat request', () => {
  test('system, text and images, tool use and tool results: the chat conversation the Anthropic one was made from', () => {
    const chat = toChat({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...ANTHROPIC_CONVERSATION })
    expect(chat.messages).toEqual(CHAT_CONVERSATION)
    expect(chat).toMatchObject({ model: 'claude-sonnet-4-5', max_completion_tokens: 1024 })
  })

  test('what chat has no place for: system blocks joined without cache_control, documents as files or text, thinking and is_error dropped', () => {
    const pdf = { type: 'base64', media_type: 'application/pdf', data: 'JVBER' }
    const chat = toChat({
      system: [
        { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be terse.' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: pdf, title: 'spec.pdf' },
            { type: 'document', source: { type: 'text', data: 'plain' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'B1' },
                { type: 'text', text: 'B2' },
              ],
              is_error: true,
            },
          ],
        },
        { role: 'assistant', content: 'Prefill' },
      ],
    })
    expect(chat.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.\n\nBe terse.' },
      {
        role: 'user',
        content: [
          { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBER' } },
          { type: 'text', text: 'plain' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'B1\nB2' },
      { role: 'assistant', content: 'Prefill' },
    ])
  })

  test('a user turn of tool results only adds no empty user message; tool_use alone has null content', () => {
    const chat = toChat({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't' }] },
      ],
    })
    expect(chat.messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't', content: '' },
    ])
  })

  test('sampling, stop sequences, user id, stream with usage, structured output; top_k and thinking dropped', () => {
    const chat = toChat({
      model: 'm',
      max_tokens: 10,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(chat).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      max_completion_tokens: 10,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' } } },
    })
  })

  test('custom tools become functions, server tools are dropped; tool_choice table; disable_parallel_tool_use', () => {
    const tools = [
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      { type: 'custom', name: 'no_params' },
      { type: 'web_search_20250305', name: 'web_search' },
    ]
    const base = { messages: [{ role: 'user', content: 'x' }], tools }
    const chat = toChat(base)
    expect(chat.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: tools[0]!.input_schema } },
      { type: 'function', function: { name: 'no_params', parameters: { type: 'object', properties: {} } } },
    ])
    expect(chat.tool_choice).toBeUndefined()
    const cases: [unknown, unknown][] = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [{ type: 'none' }, 'none'],
      [
        { type: 'tool', name: 'get_weather' },
        { type: 'function', function: { name: 'get_weather' } },
      ],
    ]
    for (const [anthropic, openai] of cases) expect(toChat({ ...base, tool_choice: anthropic }).tool_choice).toEqual(openai)
    const noParallel = toChat({ ...base, tool_choice: { type: 'auto', disable_parallel_tool_use: true } })
    expect(noParallel.parallel_tool_calls).toBe(false)
    expect(toChat({ messages: [], tool_choice: { type: 'any' } }).tool_choice).toBeUndefined()
  })
})

describe('mid-conversation system messages (Claude Code)', () => {
  test('become chat system messages at their position; empty ones (directive-only) vanish', () => {
    const chat = toChat({
      model: 'm',
      max_tokens: 10,
      system: 'Top.',
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'system',
          content: [
            { type: 'text', text: 'Env A' },
            { type: 'text', text: 'Env B' },
          ],
        },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Go' },
        { role: 'system', content: [] },
      ],
    })
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Top.' },
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Env A\n\nEnv B' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: 'Go' },
    ])
  })

  test('non-text blocks are refused in words Claude Code recognises ("not supported" … "role \'system\'")', () => {
    const body = {
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'system', content: [{ type: 'image', source: {} }] },
      ],
    }
    const error = messagesRequestToChat(body)
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).status).toBe(400)
    expect((error as GatewayError).param).toBe('messages.1.content.0.type')
    expect((error as GatewayError).message).toMatch(/not supported/)
    expect((error as GatewayError).message).toMatch(/role 'system'/)
  })

  test('count_tokens refuses the same body with the same 400 instead of estimating it', async () => {
    const refused = await estimateInputTokens({
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'a' },
            { type: 'document', source: {} },
          ],
        },
      ],
    })
    expect(refused).toBeInstanceOf(GatewayError)
    expect(refused).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages.0.content.1.type' })
  })

  test('deferred tools (loaded by Anthropic tool search on demand) are not offered to chat models', () => {
    const chat = toChat({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { name: 'Read', input_schema: { type: 'object' } },
        { name: 'DeferredToolPlaceholder', defer_loading: true, input_schema: { type: 'object' } },
      ],
    })
    expect((chat.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['Read'])
  })
})

describe('chat completion → Messages response', () => {
  const finishCases: [string | null, string][] = [
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
    ['something_new', 'end_turn'],
    [null, 'end_turn'],
  ]
  for (const [finish, stop] of finishCases) test(`finish_reason ${finish} → stop_reason ${stop}`, () => expect(stopReason(finish, false)).toBe(stop))
  test('a stop that came with tool calls is tool_use; length stays max_tokens', () => {
    expect(stopReason('stop', true)).toBe('tool_use')
    expect(stopReason('length', true)).toBe('max_tokens')
  })

  test('usage: input excludes cache reads and writes, which get their own fields', () => {
    const usage = { prompt_tokens: 125, completion_tokens: 12, total_tokens: 137, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 5 } }
    expect(anthropicUsage(usage)).toEqual({ input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 })
    expect(anthropicUsage({ prompt_tokens: 7, completion_tokens: 3 })).toEqual({ input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
    expect(anthropicUsage(undefined)).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
  })

  test('tool arguments: objects kept, anything else wrapped so input stays an object', () => {
    expect(toolInput('{"a":1}')).toEqual({ a: 1 })
    expect(toolInput('')).toEqual({})
    expect(toolInput('[1]')).toEqual({ input: [1] })
    expect(toolInput('{"a":')).toEqual({ input: '{"a":' })
  })

  test('text, refusal and tool calls become blocks; reasoning is dropped; the upstream model is reported', () => {
    const message = chatCompletionToMessage(
      {
        id: 'chatcmpl-abc',
        model: 'gpt-4o-2024-08-06',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Sure.',
              reasoning_content: 'thinking…',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
      'gpt-4o',
    )
    expect(message).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-2024-08-06',
      content: [
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { x: 1 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    })
    const refused = chatCompletionToMessage({ choices: [{ message: { content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' }] }, 'm')
    expect(refused).toMatchObject({ content: [{ type: 'text', text: 'I cannot help.' }], stop_reason: 'refusal' })
    expect(refused.id).toMatch(/^msg_[0-9a-f]{32}$/)
  })
})

describe('errors in Anthropic shape', () => {
  const table: [number, string][] = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
    [499, 'invalid_request_error'],
  ]
  for (const [status, type] of table) test(`HTTP ${status} → ${type}`, () => expect(anthropicErrorType(status)).toBe(type))

  test('the body keeps every GatewayError field inside error', () => {
    const error = new GatewayError({ status: 503, type: 'provider_error', message: 'Overloaded', code: 'overloaded_error', provider: 'anthropic' })
    expect(anthropicErrorBody(error)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded', code: 'overloaded_error', param: null, provider: 'anthropic', status_code: 503 },
    })
    expect(anthropicErrorBody(gatewayErrors.modelNotFound('x')).error).toMatchObject({ type: 'not_found_error', param: 'model', code: 'model_not_found' })
  })
})

test('count_tokens estimate: system, messages and tools count; more text, more tokens', async () => {
  const estimate = async (body: Record<string, unknown>) => answered(await estimateInputTokens(body))
  const short = await estimate({ messages: [{ role: 'user', content: 'Hello' }] })
  const longer = await estimate({ system: 'You are a careful assistant.', messages: [{ role: 'user', content: 'Hello' }] })
  const withTools = await estimate({
    system: 'You are a careful assistant.',
    messages: [{ role: 'user', content: 'Hello' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
  })
  expect(short).toBeGreaterThan(0)
  expect(longer).toBeGreaterThan(short)
  expect(withTools).toBeGreaterThan(longer)
})
