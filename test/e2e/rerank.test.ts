/**
 * `POST /v1/rerank` end to end: the official `openai` SDK's generic `post` against a gateway whose `jina` provider
 * (an OpenAI-compatible type with rerank) is a mock speaking Jina's wire format: results best first, `top_n`,
 * `return_documents`, documents as strings or `{text}`, Jina's own error body, the gateway's 400s, and the audit
 * entry with the usage Jina reports priced per token.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({ env: (urls) => ({ JINA_API_KEY: 'jina-test-key', JINA_BASE_URL: urls.openai }) })

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
