/**
 * `/v1/embeddings` end to end with the official `openai` SDK: OpenAI-family providers served natively (base64 answers
 * byte for byte, every input form passed on as sent), Gemini translated (`embedContent` for one input,
 * `batchEmbedContents` for several, `dimensions` as `outputDimensionality`, base64 made from Gemini's floats the way
 * OpenAI makes it), the providers' errors as the SDK's error classes, providers without embeddings refused, and the
 * request governed like chat: audited, metered and priced, cached.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { GEMINI_EMBEDDING_DIMENSIONS, geminiEmbeddingValues } from '../helpers/mock-gemini-upstream.ts'
import { MOCK_EMBEDDING_DIMENSIONS, mockEmbedding } from '../helpers/mock-openai-upstream.ts'
import { float32FromBase64 } from '../../src/protocols/embeddings/answer.ts'

const t = useGatewaySuite({
  families: ['openai', 'anthropic', 'gemini'],
  env: { LOGGING_LOG_BODIES: 'true', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' },
  yaml: () => `workflows:
  - name: default
    features: { cache: true }
    plugins:
      response-cache: { ttl_seconds: 60 }
`,
})

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.gw.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  })

describe('OpenAI-family providers: native', () => {
  test("the SDK's default (it asks for base64 and decodes it) gives the upstream's float32 values exactly", async () => {
    const { data, response } = await t.openai.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'sdk default' }).withResponse()
    expect(t.openaiMock.requests.at(-1)!.body).toMatchObject({ model: 'text-embedding-3-small', input: 'sdk default', encoding_format: 'base64' })
    expect(data.data[0]!.embedding).toEqual(Array.from(mockEmbedding('sdk default', MOCK_EMBEDDING_DIMENSIONS)))
    expect(data.object).toBe('list')
    expect(data.usage.prompt_tokens).toBeGreaterThan(0)
    expect(response.headers.get('x-request-id')).toBeTruthy()
  })

  test('encoding_format base64 is passed on byte for byte', async () => {
    const input = ['first text', 'second 🙂']
    const res = await post({ model: 'openai/text-embedding-3-small', input, encoding_format: 'base64' })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { data: { index: number; embedding: string }[] }
    expect(body.data.map((d) => d.index)).toEqual([0, 1])
    for (const [i, text] of input.entries()) expect(body.data[i]!.embedding).toBe(Buffer.from(mockEmbedding(text, MOCK_EMBEDDING_DIMENSIONS).buffer).toString('base64'))
  })

  test('encoding_format float, dimensions, and every input form reach the upstream as sent', async () => {
    const forms: unknown[] = [
      'one string',
      ['a', 'b', 'c'],
      [1212, 318, 257],
      [
        [1212, 318],
        [257, 1332, 13],
      ],
    ]
    for (const input of forms) {
      const answer = await t.openai.embeddings.create({ model: 'openai/text-embedding-3-large', input: input as string, encoding_format: 'float', dimensions: 4 })
      const sent = t.openaiMock.requests.at(-1)!.body
      expect(sent).toEqual({ model: 'text-embedding-3-large', input, encoding_format: 'float', dimensions: 4 })
      const count = typeof input === 'string' || typeof (input as unknown[])[0] === 'number' ? 1 : (input as unknown[]).length
      expect(answer.data).toHaveLength(count)
      expect(answer.data[0]!.embedding).toHaveLength(4)
    }
  })

  test("the upstream's errors reach the SDK as its error classes", async () => {
    const limited = await t.openai.embeddings.create({ model: 'openai/error-429', input: 'x' }).catch((e) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect(limited.headers.get('retry-after')).toBe('1')
    const down = await t.openai.embeddings.create({ model: 'openai/error-503', input: 'x' }).catch((e) => e)
    expect(down).toBeInstanceOf(OpenAI.InternalServerError)
  })
})

describe('Gemini: translated', () => {
  test('one input is embedContent; dimensions becomes outputDimensionality; floats come back in the list shape', async () => {
    const answer = await t.openai.embeddings.create({ model: 'gemini/gemini-embedding-001', input: 'Bonjour 🙂', encoding_format: 'float', dimensions: 4 })
    const seen = t.geminiMock.requests.at(-1)!
    expect(seen.path).toBe('/v1beta/models/gemini-embedding-001:embedContent')
    expect(seen.body).toEqual({ content: { parts: [{ text: 'Bonjour 🙂' }] }, outputDimensionality: 4 })
    expect(answer).toMatchObject({ object: 'list', model: 'gemini-embedding-001', data: [{ object: 'embedding', index: 0 }] })
    expect(answer.data[0]!.embedding).toEqual(geminiEmbeddingValues('Bonjour 🙂', 4))
    // Gemini reports no usage: the gateway counts the input.
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0)
    expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens)
  })

  test("several inputs are one batchEmbedContents; base64 is the floats' float32 little-endian bytes, as OpenAI sends them", async () => {
    const input = ['alpha', 'beta', 'gamma']
    const res = await post({ model: 'gemini/gemini-embedding-001', input, encoding_format: 'base64' })
    expect(res.status).toBe(200)
    const seen = t.geminiMock.requests.at(-1)!
    expect(seen.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents')
    expect(seen.body.requests).toEqual(input.map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] } })))
    const body = (await res.json()) as { data: { embedding: string }[] }
    for (const [i, text] of input.entries()) {
      const bytes = Buffer.from(Float32Array.from(geminiEmbeddingValues(text)).buffer).toString('base64')
      expect(body.data[i]!.embedding).toBe(bytes)
    }
    // And the SDK decodes them to the float32 values of Gemini's numbers.
    const decoded = await t.openai.embeddings.create({ model: 'gemini/gemini-embedding-001', input })
    expect(decoded.data.map((d) => d.embedding)).toEqual(input.map((text) => Array.from(Float32Array.from(geminiEmbeddingValues(text)))))
    expect(float32FromBase64(body.data[0]!.embedding)).toHaveLength(GEMINI_EMBEDDING_DIMENSIONS)
  })

  test('token ids cannot be embedded by Gemini: a 400 naming input, nothing sent', async () => {
    const before = t.geminiMock.requests.length
    const err = await t.openai.embeddings.create({ model: 'gemini/gemini-embedding-001', input: [1, 2, 3] }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.error).toMatchObject({ code: 'unsupported_input', param: 'input' })
    expect(t.geminiMock.requests.length).toBe(before)
  })

  test("Gemini's quota error is a RateLimitError with its RetryInfo delay as Retry-After", async () => {
    const err = await t.openai.embeddings.create({ model: 'gemini/rate-limited', input: 'x' }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.RateLimitError)
    expect(err.headers.get('retry-after')).toBe('7')
    expect(err.error).toMatchObject({ code: 'RESOURCE_EXHAUSTED' })
  })
})

describe('refused and checked', () => {
  test('a provider without embeddings (Anthropic) is a 400 unsupported_endpoint', async () => {
    const err = await t.openai.embeddings.create({ model: 'anthropic/claude-sonnet-4-5', input: 'x' }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.error).toMatchObject({ code: 'unsupported_endpoint' })
  })

  test('bad input is a 400 naming the field, and still audited', async () => {
    for (const [input, message] of [
      [[], 'input: expected at least one input'],
      [Array.from({ length: 2049 }, () => 'x'), 'input: expected at most 2048 inputs'],
      [{ text: 'x' }, 'input: expected a string, an array of strings, an array of tokens or an array of token arrays'],
    ] as const) {
      const res = await post({ model: 'openai/text-embedding-3-small', input })
      expect(res.status).toBe(400)
      const body = (await res.json()) as { error: { message: string } }
      expect(body.error.message).toStartWith(message)
      const entry = await t.audit.entryFor(res.headers.get('x-request-id')!)
      expect(entry.status_code).toBe(400)
    }
  })
})

describe('governed like chat', () => {
  test('the audit entry carries the usage, priced from the bundled prices', async () => {
    const res = await post({ model: 'openai/text-embedding-3-small', input: 'priced input' })
    expect(res.status).toBe(200)
    const entry = await t.audit.entryFor(res.headers.get('x-request-id')!)
    expect(entry).toMatchObject({ path: '/v1/embeddings', status_code: 200, resolved_model: 'openai/text-embedding-3-small' })
    expect(entry.usage).toMatchObject({ input_tokens: 3, output_tokens: 0 })
    expect(entry.usage!.cost_usd).toBeCloseTo((3 * 0.02) / 1e6, 12)
  })

  test("Gemini's usage is the gateway's count, so its usage record is marked estimated; OpenAI's is not", async () => {
    const summary = async () =>
      (await (await fetch(`${t.gw.url}/admin/usage/summary?days=1`, { headers: { authorization: `Bearer ${t.master}` } })).json()) as {
        requests: number
        estimated_requests: number
      }
    const settled = async (before: { requests: number }) => {
      let after = await summary()
      for (let i = 0; i < 50 && after.requests === before.requests; i++) after = (await Bun.sleep(50), await summary())
      return after
    }
    const beforeGemini = await summary()
    expect((await post({ model: 'gemini/gemini-embedding-001', input: 'counted here' })).status).toBe(200)
    const afterGemini = await settled(beforeGemini)
    expect(afterGemini.requests - beforeGemini.requests).toBe(1)
    expect(afterGemini.estimated_requests - beforeGemini.estimated_requests).toBe(1)
    expect((await post({ model: 'openai/text-embedding-3-small', input: 'counted upstream' })).status).toBe(200)
    const afterOpenAI = await settled(afterGemini)
    expect(afterOpenAI.requests - afterGemini.requests).toBe(1)
    expect(afterOpenAI.estimated_requests).toBe(afterGemini.estimated_requests)
  })

  test('a repeated request is answered from the cache; another encoding is another entry', async () => {
    const body = { model: 'openai/text-embedding-3-small', input: 'cache me', encoding_format: 'base64' }
    const first = await post(body, { 'cache-control': '' })
    const before = t.openaiMock.requests.length
    const again = await post(body, { 'cache-control': '' })
    expect(again.headers.get('x-cache')).toBe('HIT')
    expect(await again.text()).toBe(await first.text())
    expect(t.openaiMock.requests.length).toBe(before)
    const float = await post({ ...body, encoding_format: 'float' }, { 'cache-control': '' })
    expect(float.headers.get('x-cache')).toBe('MISS')
    expect(t.openaiMock.requests.length).toBe(before + 1)
  })
})
