/**
 * End to end with the official `openai` SDK against a real gateway and a mock OpenAI upstream.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { MOCK_MODELS, TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { readChatStream } from '../helpers/chat-stream.ts'

const t = useGatewaySuite({
  openaiMockOptions: { apiKey: 'sk-upstream-secret-123456' },
  env: { OPENAI_API_KEY: 'sk-upstream-secret-123456', VIRTUAL_MODELS: JSON.stringify([{ source: 'fast', target: 'openai/gpt-4o-mini' }]) },
})

const messages = [{ role: 'user' as const, content: 'Say hello' }]

describe('models', () => {
  test('lists provider selectors and virtual models', async () => {
    const ids = []
    for await (const m of t.openai.models.list()) ids.push(m.id)
    expect(ids).toEqual(expect.arrayContaining([...MOCK_MODELS.map((m) => `openai/${m}`), 'fast']))
    const one = await t.openai.models.retrieve('openai/gpt-4o')
    expect(one).toMatchObject({ id: 'openai/gpt-4o', object: 'model', owned_by: 'openai' })
  })

  test('unknown model id is a NotFoundError', async () => {
    const err = await t.openai.models.retrieve('openai/nope-model').catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.NotFoundError)
  })
})

describe('chat completions', () => {
  test('non-stream answer arrives intact, with usage and the request id', async () => {
    const { data, response } = await t.openai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages }).withResponse()
    expect(data.choices[0]!.message.content).toBe(TRICKY_TEXT)
    expect(data.usage?.total_tokens).toBe(17)
    expect(response.headers.get('x-request-id')).toBeTruthy()
    const seen = t.openaiMock.requests.at(-1)!
    expect(seen.body.model).toBe('gpt-4o-mini')
    expect(seen.headers.authorization).toBe('Bearer sk-upstream-secret-123456')
  })

  test('virtual model and bare name resolve to the provider target', async () => {
    await t.openai.chat.completions.create({ model: 'fast', messages })
    expect(t.openaiMock.requests.at(-1)!.body.model).toBe('gpt-4o-mini')
    await t.openai.chat.completions.create({ model: 'gpt-4o', messages })
    expect(t.openaiMock.requests.at(-1)!.body.model).toBe('gpt-4o')
  })

  test('unknown fields pass through untouched', async () => {
    await t.openai.chat.completions.create({ model: 'openai/gpt-4o', messages, top_k: 5, provider_specific: { a: [1, 2] } } as never)
    const body = t.openaiMock.requests.at(-1)!.body
    expect(body.top_k).toBe(5)
    expect(body.provider_specific).toEqual({ a: [1, 2] })
  })

  test('stream: chunks split inside UTF-8 characters arrive whole; finalChatCompletion works', async () => {
    const { text, final } = await readChatStream(t.openai.chat.completions.stream({ model: 'openai/gpt-4o-mini', messages, stream_options: { include_usage: true } }))
    expect(text).toBe(TRICKY_TEXT)
    expect(final.choices[0]!.message.content).toBe(TRICKY_TEXT)
    expect(final.choices[0]!.finish_reason).toBe('stop')
    expect(final.usage?.completion_tokens).toBe(Array.from(TRICKY_TEXT).length)
  })

  test('stream framing is data-only and ends with [DONE]', async () => {
    const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages, stream: true }),
    })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(res.headers.get('content-encoding')).toBeNull()
    const raw = await res.text()
    expect(raw).toMatch(/^(data: \{.*\}\n\n)+data: \[DONE\]\n\n$/)
  })

  test('tool calls: non-stream and streamed reassembly', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const plain = await t.openai.chat.completions.create({ model: 'openai/tools', messages, tools })
    expect(plain.choices[0]!.message.tool_calls?.[0]).toMatchObject({ id: 'call_weather1', type: 'function', function: { name: 'get_weather' } })
    expect(t.openaiMock.requests.at(-1)!.body.tools).toEqual(tools)

    const stream = t.openai.chat.completions.stream({ model: 'openai/tools', messages, tools })
    const final = await stream.finalChatCompletion()
    const calls = final.choices[0]!.message.tool_calls!
    expect(final.choices[0]!.finish_reason).toBe('tool_calls')
    expect(calls.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather', 'get_time'])
    expect(JSON.parse((calls[0] as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Paris' })
  })

  test('upstream gzip is decoded once and not advertised to the client', async () => {
    const res = await t.openai.chat.completions.create({ model: 'openai/gzip', messages })
    expect(res.choices[0]!.message.content).toBe('compressed hello')
  })
})

describe('responses', () => {
  test('responses.create and responses.stream().finalResponse()', async () => {
    const created = await t.openai.responses.create({ model: 'openai/gpt-4o', input: 'hi' })
    expect(created.output_text).toBe('Hello from responses 🙂')
    expect(t.openaiMock.requests.at(-1)!.path).toBe('/v1/responses')

    const stream = t.openai.responses.stream({ model: 'openai/gpt-4o', input: 'hi' })
    let deltas = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta
    const final = await stream.finalResponse()
    expect(deltas).toBe('Hello from responses 🙂')
    expect(final.status).toBe('completed')
    expect(final.usage?.total_tokens).toBe(13)
  })
})

describe('errors keep their meaning and SDK class', () => {
  test('wrong gateway key → AuthenticationError (401)', async () => {
    const bad = new OpenAI({ apiKey: 'not-the-key', baseURL: t.gw.baseURL, maxRetries: 0 })
    const err = await bad.chat.completions.create({ model: 'openai/gpt-4o', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(err.error).toMatchObject({ type: 'authentication_error', provider: '', status_code: 401 })
  })

  test('unknown model → NotFoundError naming the model and /v1/models', async () => {
    const err = await t.openai.chat.completions.create({ model: 'nosuch/model-x', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.NotFoundError)
    expect(err.message).toContain("'nosuch/model-x'")
    expect(err.message).toContain('/v1/models')
    expect(err.error.code).toBe('model_not_found')
  })

  test('upstream 429 stays 429 with Retry-After, and the SDK retries it', async () => {
    const retrying = new OpenAI({ apiKey: t.master, baseURL: t.gw.baseURL, maxRetries: 2 })
    const before = t.openaiMock.requests.filter((r) => r.body?.model === 'error-429').length
    const err = await retrying.chat.completions.create({ model: 'openai/error-429', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.RateLimitError)
    expect(err.headers.get('retry-after')).toBe('1')
    expect(err.error).toMatchObject({ type: 'rate_limit_error', provider: 'openai', status_code: 429 })
    expect(t.openaiMock.requests.filter((r) => r.body?.model === 'error-429').length - before).toBe(3)
  })

  test('upstream 5xx → InternalServerError naming the provider', async () => {
    const err = await t.openai.chat.completions.create({ model: 'openai/error-500', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.InternalServerError)
    expect(err.error).toMatchObject({ type: 'provider_error', provider: 'openai', status_code: 500 })
  })

  test('upstream 400 keeps status, param and code', async () => {
    const err = await t.openai.chat.completions.create({ model: 'openai/error-400', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.error).toMatchObject({ param: 'max_tokens', code: 'unsupported_parameter', provider: 'openai' })
  })

  test('a provider credential in an upstream message never reaches the client', async () => {
    const err = await t.openai.chat.completions.create({ model: 'openai/error-401', messages }).catch((e) => e)
    expect(err.status).toBe(502)
    expect(JSON.stringify(err.error)).not.toContain('sk-proj-abcdef1234567890')
    expect(JSON.stringify(err.error)).not.toContain('sk-upstream-secret')
  })

  test('non-JSON upstream error body becomes a GatewayError', async () => {
    const err = await t.openai.chat.completions.create({ model: 'openai/error-html', messages }).catch((e) => e)
    expect(err.status).toBe(502)
    expect(err.error).toMatchObject({ type: 'provider_error', provider: 'openai' })
  })

  test('a stream that breaks mid-way ends with an error frame the SDK raises', async () => {
    const stream = await t.openai.chat.completions.create({ model: 'openai/broken-stream', messages, stream: true })
    let got = ''
    const err = await (async () => {
      for await (const chunk of stream) got += chunk.choices[0]?.delta?.content ?? ''
    })().catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.APIError)
    expect(String(err.message)).toContain('broke off')
    expect(got.length).toBeGreaterThan(0)
  })
})
