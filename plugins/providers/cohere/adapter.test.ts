import { afterAll, expect, test } from 'bun:test'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import type { ProviderInstance } from '../../../src/providers/types.ts'
import { COHERE_RERANK_MODELS, startMockCohere } from '../../../test/helpers/mock-rerank-upstreams.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { cohereAdapter, cohereModelPage } from './adapter.ts'

const mock = startMockCohere('co-key')
afterAll(() => mock.stop())

const provider = (apiKey = 'co-key'): ProviderInstance => ({ name: 'co', type: 'cohere', baseUrl: mock.url, apiKey, staticModels: [], nativeResponses: false })
const documents = ['The weather in Paris is mild', { text: 'Lighthouses guide ships at night' }, 'A lighthouse keeper in Paris']
const query = 'lighthouse in Paris'

function call(body: Record<string, unknown>, apiKey?: string) {
  return cohereAdapter.rerank!({
    provider: provider(apiKey),
    target: { providerName: 'co', providerType: 'cohere', model: String(body.model), selector: `co/${body.model}` },
    body,
    ctx: makeContext({ endpoint: 'rerank', path: '/v1/rerank', body }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [apiKey ?? 'co-key'] },
  })
}

test('the shared request goes to /v2/rerank as Cohere takes it: documents as strings, top_n; return_documents stays with the gateway', async () => {
  const res = answered(await call({ model: 'rerank-v3.5', query, documents, top_n: 2, return_documents: true }))
  const seen = mock.requests.at(-1)!
  expect(seen).toMatchObject({ method: 'POST', path: '/v2/rerank', headers: { authorization: 'Bearer co-key' } })
  expect(seen.body).toEqual({
    model: 'rerank-v3.5',
    query,
    documents: ['The weather in Paris is mild', 'Lighthouses guide ships at night', 'A lighthouse keeper in Paris'],
    top_n: 2,
  })
  const answer = (await res.json()) as any
  expect(answer.model).toBe('rerank-v3.5')
  expect(answer.results.map((r: any) => r.index)).toEqual([2, 0])
  // Cohere v2 returns no documents: the gateway adds them from the request, as the shared shape has them.
  expect(answer.results[0].document).toEqual({ text: 'A lighthouse keeper in Paris' })
  expect(answer.usage).toEqual({ search_units: 1 })
  expect(typeof answer.id).toBe('string')
})

test('without return_documents the results are indexes and scores only', async () => {
  const answer = (await answered(await call({ model: 'rerank-v3.5', query, documents })).json()) as any
  expect(answer.results.map((r: any) => r.index)).toEqual([2, 0, 1])
  expect(answer.results.every((r: any) => r.document === undefined && typeof r.relevance_score === 'number')).toBe(true)
})

test("Cohere's refusals are GatewayErrors with its status and message; a wrong key is the gateway's 502", async () => {
  const unknown = await call({ model: 'rerank-unknown', query, documents })
  expect(unknown).toBeInstanceOf(GatewayError)
  expect(unknown).toMatchObject({ status: 404, provider: 'co', message: expect.stringContaining("model 'rerank-unknown' not found") })
  const badTopN = await call({ model: 'rerank-v3.5', query, documents, top_n: 0 })
  expect(badTopN).toMatchObject({ status: 400, message: expect.stringContaining('top_n') })
  const wrongKey = await call({ model: 'rerank-v3.5', query, documents }, 'wrong')
  expect(wrongKey).toMatchObject({ status: 502, type: 'provider_error' })
})

test('chat is refused: the provider serves rerank only', async () => {
  const body = { model: 'rerank-v3.5', messages: [{ role: 'user', content: 'hi' }] }
  const refused = await cohereAdapter.chatCompletions({
    provider: provider(),
    target: { providerName: 'co', providerType: 'cohere', model: 'rerank-v3.5', selector: 'co/rerank-v3.5' },
    body,
    ctx: makeContext({ body }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
  })
  expect(refused).toMatchObject({ status: 400, code: 'unsupported_endpoint' })
})

test('the model list is the rerank models of GET /v1/models?endpoint=rerank, page by page', async () => {
  expect(await cohereAdapter.listModels(provider(), AbortSignal.timeout(2000))).toEqual(COHERE_RERANK_MODELS)
  expect(mock.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', search: '?endpoint=rerank' })
  expect(cohereModelPage({ models: [{ name: 'a' }, { nope: 1 }], next_page_token: 't' })).toEqual({ ids: ['a'], next: 't' })
  expect(cohereModelPage({ data: [] })).toBeUndefined()
})
