/**
 * `POST /v1/rerank` end to end: the official `openai` SDK's generic `post` against a gateway whose `jina` provider
 * (an OpenAI-compatible type with rerank) is a mock speaking Jina's wire format: results best first, `top_n`,
 * `return_documents`, documents as strings or `{text}`, Jina's own error body, the gateway's 400s, and the audit
 * entry with the usage Jina reports priced per token. The `cohere` and `voyage` types are translated to and from
 * their own APIs (mocks in their wire formats): Cohere priced per search unit, Voyage per token.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { mockTokens, startMockCohere, startMockVoyage } from '../helpers/mock-rerank-upstreams.ts'

const cohere = startMockCohere('co-test-key')
const voyage = startMockVoyage('pa-test-key')
afterAll(() => {
  cohere.stop()
  voyage.stop()
})

const t = useGatewaySuite({
  env: (urls) => ({
    JINA_API_KEY: 'jina-test-key',
    JINA_BASE_URL: urls.openai,
    COHERE_API_KEY: 'co-test-key',
    COHERE_BASE_URL: cohere.url,
    VOYAGE_API_KEY: 'pa-test-key',
    VOYAGE_BASE_URL: voyage.url,
    LOGGING_LOG_BODIES: 'true',
  }),
})

interface Reranked {
  model: string
  results: { index: number; relevance_score: number; document?: { text: string } }[]
  usage: { total_tokens: number }
}

/** What a call that must fail was rejected with. */
const failure = (call: Promise<unknown>): Promise<any> =>
  call.then(
    () => new Error('expected the call to fail'),
    (e) => e,
  )

const documents = ['The weather in Paris is mild', 'Lighthouses guide ships at night', 'A lighthouse keeper in Paris']
const query = 'lighthouse in Paris'

describe('rerank', () => {
  test('results best first with their documents; top_n; usage priced per token; the request as Jina takes it', async () => {
    const { data, response } = await t.openai.post<Reranked>('/rerank', { body: { model: 'jina/jina-reranker-v2-base-multilingual', query, documents, top_n: 2 } }).withResponse()
    expect(data.results.map((r) => r.index)).toEqual([2, 0])
    expect(data.results[0]!.document).toEqual({ text: documents[2]! })
    const seen = t.openaiMock.requests.at(-1)!
    expect(seen.path).toBe('/v1/rerank')
    expect(seen.headers.authorization).toBe('Bearer jina-test-key')
    expect(seen.body).toEqual({ model: 'jina-reranker-v2-base-multilingual', query, documents, top_n: 2 })
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: data.usage.total_tokens, output_tokens: 0 })
    expect(entry.usage!.cost_usd).toBeCloseTo((data.usage.total_tokens * 0.05) / 1e6, 12)
  })

  test('return_documents false; documents as {text} objects', async () => {
    const data = await t.openai.post<Reranked>('/rerank', {
      body: { model: 'jina/jina-reranker-m0', query, documents: documents.map((text) => ({ text })), return_documents: false },
    })
    expect(data.results.map((r) => r.index)).toEqual([2, 0, 1])
    expect(data.results.every((r) => r.document === undefined)).toBe(true)
  })

  test("Jina's error body is the SDK's APIError with Jina's status and message; the gateway's own 400s name the field", async () => {
    const failed = await failure(t.openai.post('/rerank', { body: { model: 'jina/rerank-unknown', query, documents } }))
    expect(failed).toBeInstanceOf(OpenAI.UnprocessableEntityError)
    expect(failed.message).toContain('rerank-unknown is not available')
    expect((await t.audit.entryFor(failed.headers.get('x-request-id'))).status_code).toBe(422)

    const noDocuments = await failure(t.openai.post('/rerank', { body: { model: 'jina/jina-reranker-m0', query, documents: [] } }))
    expect(noDocuments).toBeInstanceOf(OpenAI.BadRequestError)
    expect(noDocuments.message).toContain('at least one document')
    const noQuery = await failure(t.openai.post('/rerank', { body: { model: 'jina/jina-reranker-m0', documents } }))
    expect(noQuery).toBeInstanceOf(OpenAI.BadRequestError)
    expect(noQuery.message).toContain('query')
  })
})

describe('rerank through Cohere and Voyage AI', () => {
  test('Cohere: the shared request and answer, the documents added from the request, one search unit priced at 0.002 USD', async () => {
    const { data, response } = await t.openai
      .post<Reranked>('/rerank', {
        body: { model: 'cohere/rerank-v3.5', query, documents: documents.map((text, i) => (i === 1 ? { text } : text)), top_n: 2, return_documents: true },
      })
      .withResponse()
    expect(data.results.map((r) => r.index)).toEqual([2, 0])
    expect(data.results[0]!.document).toEqual({ text: documents[2]! })
    expect(cohere.requests.at(-1)!.body).toEqual({ model: 'rerank-v3.5', query, documents, top_n: 2 })
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.provider_name).toBe('cohere')
    expect(entry.usage).toMatchObject({ unit: 'search_unit', units: 1, output_tokens: 0 })
    expect(entry.usage!.cost_usd).toBeCloseTo(0.002, 12)
    expect(JSON.stringify(entry)).not.toContain('co-test-key')
  })

  test("Voyage: top_n as top_k, data as results, the tokens Voyage reports priced per token; Voyage's refusal as the SDK's error", async () => {
    const { data, response } = await t.openai.post<Reranked>('/rerank', { body: { model: 'voyage/rerank-2.5', query, documents, top_n: 1 } }).withResponse()
    expect(data.results).toEqual([{ index: 2, relevance_score: expect.any(Number) }])
    expect(voyage.requests.at(-1)!.body).toMatchObject({ model: 'rerank-2.5', top_k: 1, return_documents: false })
    const tokens = documents.reduce((sum, d) => sum + mockTokens(query) + mockTokens(d), 0)
    expect(data.usage.total_tokens).toBe(tokens)
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.usage).toMatchObject({ input_tokens: tokens, output_tokens: 0 })
    expect(entry.usage!.cost_usd).toBeCloseTo((tokens * 0.05) / 1e6, 12)

    const refused = await failure(t.openai.post('/rerank', { body: { model: 'voyage/rerank-unknown', query, documents } }))
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.message).toContain('Model rerank-unknown is not supported')
    expect((await t.audit.entryFor(refused.headers.get('x-request-id'))).status_code).toBe(400)
  })

  test('chat to a rerank-only provider is a 400 unsupported_endpoint', async () => {
    const refused = await failure(t.openai.chat.completions.create({ model: 'cohere/rerank-v3.5', messages: [{ role: 'user', content: 'hi' }] }))
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError)
    expect(refused.error).toMatchObject({ code: 'unsupported_endpoint' })
  })
})
