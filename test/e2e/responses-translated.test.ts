/**
 * /v1/responses for an upstream without a native Responses API: the request is translated onto chat and the
 * answer (JSON and stream) back into Responses objects and events the official SDK accepts.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway } from '../helpers/gateway.ts'
import { TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

// Mistral has no native Responses API, so the gateway translates.
const t = useGatewaySuite({ providersFromEnv: false, env: (urls) => ({ MISTRAL_API_KEY: 'sk-m', MISTRAL_BASE_URL: urls.openai }) })

const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }]

describe('responses over a chat-only upstream', () => {
  test('create: instructions and input become chat messages; the answer is a Response', async () => {
    const res = await t.openai.responses.create({ model: 'mistral/gpt-4o', instructions: 'Be brief.', input: 'echo:hello there', max_output_tokens: 50 })
    const sent = t.openaiMock.requests.at(-1)!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'echo:hello there' },
    ])
    expect(sent.body.max_completion_tokens).toBe(50)
    expect(sent.body.input).toBeUndefined()
    expect(res.object).toBe('response')
    expect(res.status).toBe('completed')
    expect(res.output_text).toBe('hello there')
    expect(res.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17, input_tokens_details: { cached_tokens: 2 } })
    expect(res.id).toStartWith('resp_')
  })

  test('stream: event order, sequence numbers from 0, finalResponse()', async () => {
    const raw = await fetch(`${t.gw.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral/gpt-4o', input: 'hi', stream: true }),
    }).then((r) => r.text())
    const events = raw
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n')
        return { name: eventLine!.replace('event: ', ''), data: JSON.parse(dataLine!.replace('data: ', '')) }
      })
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i))
    for (const e of events) expect(e.data.type).toBe(e.name)
    const names = events.map((e) => e.name)
    expect(names.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'])
    expect(names.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'])
    expect(raw).not.toContain('[DONE]')

    const stream = t.openai.responses.stream({ model: 'mistral/gpt-4o', input: 'hi' })
    let deltas = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta
    const final = await stream.finalResponse()
    expect(deltas).toBe(TRICKY_TEXT)
    expect(final.output_text).toBe(TRICKY_TEXT)
    expect(final.usage?.output_tokens).toBe(Array.from(TRICKY_TEXT).length)
    expect(t.openaiMock.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true })
  })

  test('function calls: flat tools are nested for chat; calls come back as function_call items, streamed too', async () => {
    const res = await t.openai.responses.create({ model: 'mistral/tools', input: 'weather?', tools, tool_choice: { type: 'function', name: 'get_weather' } })
    const sent = t.openaiMock.requests.at(-1)!.body
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: tools[0]!.parameters, strict: false } }])
    expect(sent.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } })
    expect(res.output[0]).toMatchObject({ type: 'function_call', call_id: 'call_weather1', name: 'get_weather', arguments: '{"city":"Paris"}' })

    const stream = t.openai.responses.stream({ model: 'mistral/tools', input: 'weather?', tools })
    const argDeltas: string[] = []
    stream.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta))
    const final = await stream.finalResponse()
    const calls = final.output.filter((o) => o.type === 'function_call')
    expect(calls.map((c) => c.type === 'function_call' && [c.call_id, c.name, c.arguments])).toEqual([
      ['call_weather1', 'get_weather', '{"city": "Paris"}'],
      ['call_time2', 'get_time', '{"tz":"CET"}'],
    ])
    expect(argDeltas.join('')).toBe('{"city": "Paris"}{"tz":"CET"}')
  })

  test('a tool result turn becomes assistant tool_calls + tool messages', async () => {
    await t.openai.responses.create({
      model: 'mistral/gpt-4o',
      tools,
      input: [
        { role: 'user', content: 'weather in Paris and the time?' },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_a', output: '18C' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: '12:00' }] },
      ],
    })
    expect(t.openaiMock.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'weather in Paris and the time?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '18C' },
      { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
    ])
  })

  test('an upstream failure mid-stream ends with response.failed', async () => {
    const stream = t.openai.responses.stream({ model: 'mistral/broken-stream', input: 'hi' })
    const failed: unknown[] = []
    stream.on('response.failed', (e) => failed.push(e.response.error))
    const final = await stream.finalResponse()
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ code: 'stream_interrupted' })
    expect(final.status).toBe('failed')
  })

  test('input the translation refuses: a BadRequestError naming the item, no upstream call, an audit entry', async () => {
    const requestId = crypto.randomUUID()
    const sentBefore = t.openaiMock.requests.length
    const input = [{ type: 'computer_call', call_id: 'c1' }] as never
    const err = await t.openai.responses.create({ model: 'mistral/gpt-4o', input }, { headers: { 'x-request-id': requestId } }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'input[0].type', code: 'unsupported_input_item', status_code: 400 })
    expect(t.openaiMock.requests.length).toBe(sentBefore)
    const entry = await t.audit.entryFor(requestId)
    expect(entry).toMatchObject({ path: '/v1/responses', status_code: 400, error_type: 'invalid_request_error', resolved_model: 'mistral/gpt-4o' })
  })

  test('upstream errors keep their class', async () => {
    const err = await t.openai.responses.create({ model: 'mistral/error-429', input: 'x' }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.RateLimitError)
  })
})

describe('previous_response_id across providers', () => {
  test('a thread started natively on OpenAI continues on a chat-only provider', async () => {
    const cross = await startGateway({
      GATEWAY_MASTER_KEY: t.master,
      OPENAI_API_KEY: 'sk-o',
      OPENAI_BASE_URL: t.openaiMock.url,
      MISTRAL_API_KEY: 'sk-m',
      MISTRAL_BASE_URL: t.openaiMock.url,
    })
    try {
      const c = new OpenAI({ apiKey: t.master, baseURL: cross.baseURL, maxRetries: 0 })
      const first = await c.responses.create({ model: 'openai/gpt-4o', input: 'my name is Ada' })
      expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/responses')
      const second = await c.responses.create({ model: 'mistral/gpt-4o', input: 'echo:what is my name?', previous_response_id: first.id })
      expect(t.openaiMock.requests.at(-1)!.body.messages).toEqual([
        { role: 'user', content: 'my name is Ada' },
        { role: 'assistant', content: 'Hello from responses 🙂' },
        { role: 'user', content: 'echo:what is my name?' },
      ])
      const third = await c.responses.create({ model: 'mistral/gpt-4o', input: 'echo:and again', previous_response_id: second.id })
      expect(third.output_text).toBe('and again')
      expect(t.openaiMock.requests.at(-1)!.body.messages).toHaveLength(5)
      const missing = await c.responses.create({ model: 'mistral/gpt-4o', input: 'x', previous_response_id: 'resp_nope' }).catch((e) => e)
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError)
    } finally {
      await cross.stop()
    }
  })
})
