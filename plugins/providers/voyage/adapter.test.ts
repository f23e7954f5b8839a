import { afterAll, expect, test } from 'bun:test'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import type { ProviderInstance } from '../../../src/providers/types.ts'
import { mockTokens, startMockVoyage } from '../../../test/helpers/mock-rerank-upstreams.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { VOYAGE_RERANKERS, voyageAdapter } from './adapter.ts'

const mock = startMockVoyage('pa-key')
afterAll(() => mock.stop())

const provider = (apiKey = 'pa-key'): ProviderInstance => ({ name: 'vo', type: 'voyage', baseUrl: mock.url, apiKey, staticModels: [], nativeResponses: false })
const documents = ['The weather in Paris is mild', { text: 'Lighthouses guide ships at night' }, 'A lighthouse keeper in Paris']
const texts = ['The weather in Paris is mild', 'Lighthouses guide ships at night', 'A lighthouse keeper in Paris']
const query = 'lighthouse in Paris'

function call(body: Record<string, unknown>, apiKey?: string) {
  return voyageAdapter.rerank!({
    provider: provider(apiKey),
    target: { providerName: 'vo', providerType: 'voyage', model: String(body.model), selector: `vo/${body.model}` },
    body,
    ctx: makeContext({ endpoint: 'rerank', path: '/v1/rerank', body }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [apiKey ?? 'pa-key'] },
  })
}

test('the shared request goes to /rerank as Voyage takes it: top_n as top_k, documents as strings; data becomes results', async () => {
  const res = answered(await call({ model: 'rerank-2.5', query, documents, top_n: 2, return_documents: true }))
  const seen = mock.requests.at(-1)!
  expect(seen).toMatchObject({ method: 'POST', path: '/v1/rerank', headers: { authorization: 'Bearer pa-key' } })
  expect(seen.body).toEqual({ model: 'rerank-2.5', query, documents: texts, top_k: 2, return_documents: false })
  const answer = (await res.json()) as any
  expect(answer.model).toBe('rerank-2.5')
  expect(answer.results.map((r: any) => r.index)).toEqual([2, 0])
  expect(answer.results[0].document).toEqual({ text: texts[2] })
  expect(answer.usage).toEqual({ total_tokens: texts.reduce((sum, d) => sum + mockTokens(query) + mockTokens(d), 0) })
  expect(answer.data).toBeUndefined()
})

test('without return_documents the results are indexes and scores only; every document ranked without top_n', async () => {
  const answer = (await answered(await call({ model: 'rerank-2.5-lite', query, documents })).json()) as any
  expect(answer.results.map((r: any) => r.index)).toEqual([2, 0, 1])
  expect(answer.results.every((r: any) => r.document === undefined)).toBe(true)
  expect(mock.requests.at(-1)!.body.top_k).toBeUndefined()
})

test("Voyage's {detail} refusals are GatewayErrors with its status and message; a wrong key is the gateway's 502", async () => {
  const unknown = await call({ model: 'rerank-unknown', query, documents })
  expect(unknown).toBeInstanceOf(GatewayError)
  expect(unknown).toMatchObject({
    status: 400,
    provider: 'vo',
    message: 'Model rerank-unknown is not supported. Supported models are rerank-2.5, rerank-2.5-lite, rerank-2, rerank-2-lite.',
  })
  const wrongKey = await call({ model: 'rerank-2.5', query, documents }, 'wrong')
  expect(wrongKey).toMatchObject({ status: 502, type: 'provider_error', message: expect.stringContaining('Provided API key is invalid.') })
})

test('chat is refused; the model list is the rerankers Voyage documents (it has no list endpoint)', async () => {
  const body = { model: 'rerank-2.5', messages: [{ role: 'user', content: 'hi' }] }
  const refused = await voyageAdapter.chatCompletions({
    provider: provider(),
    target: { providerName: 'vo', providerType: 'voyage', model: 'rerank-2.5', selector: 'vo/rerank-2.5' },
    body,
    ctx: makeContext({ body }),
    attemptKind: 'primary',
    limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
  })
  expect(refused).toMatchObject({ status: 400, code: 'unsupported_endpoint' })
  expect(await voyageAdapter.listModels(provider(), AbortSignal.timeout(1000))).toEqual(VOYAGE_RERANKERS)
})
