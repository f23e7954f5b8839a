import { afterAll, expect, test } from 'bun:test'
import { MOCK_EMBEDDING_DIMENSIONS, mockEmbedding, startMockOpenAI } from '../../../test/helpers/mock-openai-upstream.ts'
import { answered, makeContext } from '../../../test/helpers/plugin-harness.ts'
import { float32Base64, float32FromBase64 } from '../../../src/protocols/embeddings/answer.ts'
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { openaiCompatibleAdapter, modelListPage } from './adapter.ts'

const mock = startMockOpenAI({ models: ['models/gemini-2.5-flash', 'gpt-4o'], apiKey: 'sk-1' })
afterAll(() => mock.stop())

test('lists upstream models with the bearer key, stripping a models/ prefix', async () => {
  const ids = await openaiCompatibleAdapter.listModels(
    { name: 'p', type: 'openai', baseUrl: mock.url, apiKey: 'sk-1', staticModels: [], nativeResponses: true },
    AbortSignal.timeout(2000),
  )
  expect(ids).toEqual(['gemini-2.5-flash', 'gpt-4o'])
  expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-1')
})

test('a failed list is a returned error naming the provider (the catalog then falls back to the static list)', async () => {
  const refused = await openaiCompatibleAdapter.listModels(
    { name: 'p', type: 'openai', baseUrl: mock.url, apiKey: 'wrong', staticModels: [], nativeResponses: true },
    AbortSignal.timeout(2000),
  )
  expect(refused).toBeInstanceOf(GatewayError)
  expect(refused).toMatchObject({ status: 502, provider: 'p', code: 'model_list_unavailable', message: "Provider 'p': GET /models answered HTTP 401" })
  const unreachable = await openaiCompatibleAdapter.listModels(
    { name: 'q', type: 'openai', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', staticModels: [], nativeResponses: true },
    AbortSignal.timeout(2000),
  )
  expect(unreachable).toMatchObject({ provider: 'q', code: 'model_list_unavailable' })
  expect((unreachable as GatewayError).message).toStartWith("Provider 'q': GET /models failed: ")
  expect(modelListPage({ nope: 1 })).toBeUndefined()
  expect(modelListPage({ data: [{ id: 'models/a' }, { id: 7 }] })).toEqual({ ids: ['a'] })
})

test("embeddings are posted to /embeddings as sent; the base64 answer is the upstream's text, unparsed and unchanged", async () => {
  const body = { model: 'text-embedding-3-small', input: [[1, 2], [3]], encoding_format: 'base64' }
  const res = answered(
    await openaiCompatibleAdapter.embeddings!({
      provider: { name: 'p', type: 'openai', baseUrl: mock.url, apiKey: 'sk-1', staticModels: [], nativeResponses: true },
      target: { providerName: 'p', providerType: 'openai', model: 'text-embedding-3-small', selector: 'p/text-embedding-3-small' },
      body,
      ctx: makeContext({ body }),
      attemptKind: 'primary',
      limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
    }),
  )
  expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/embeddings', body, headers: { authorization: 'Bearer sk-1' } })
  const answer = (await res.json()) as { data: { embedding: string }[] }
  expect(answer.data[1]!.embedding).toBe(Buffer.from(mockEmbedding([3], MOCK_EMBEDDING_DIMENSIONS).buffer).toString('base64'))
})

test("float32Base64 is OpenAI's encoding: float32 little-endian, and reads back to the float32 values", () => {
  const values = [0.1, -2.5, 1e-8, 3.4e38]
  expect(float32Base64(values)).toBe(Buffer.from(Float32Array.from(values).buffer).toString('base64'))
  expect(float32FromBase64(float32Base64(values))).toEqual(Array.from(Float32Array.from(values)))
  expect(Buffer.from(float32Base64([1]), 'base64')).toEqual(Buffer.from([0, 0, 0x80, 0x3f]))
})

test('legacy completions are posted to /completions as sent, suffix included', async () => {
  const body = { model: 'deepseek-coder', prompt: 'def f(', suffix: '\n    return x' }
  const res = answered(
    await openaiCompatibleAdapter.completions!({
      provider: { name: 'p', type: 'openai', baseUrl: mock.url, apiKey: 'sk-1', staticModels: [], nativeResponses: true },
      target: { providerName: 'p', providerType: 'openai', model: 'deepseek-coder', selector: 'p/deepseek-coder' },
      body,
      ctx: makeContext({ body }),
      attemptKind: 'primary',
      limits: { ttfbMs: 5000, idleMs: 5000, maxResponseBytes: 1 << 20, secrets: [] },
    }),
  )
  expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/completions', body })
  expect(((await res.json()) as { object: string }).object).toBe('text_completion')
})
