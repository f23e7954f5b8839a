import { afterAll, expect, test } from 'bun:test'
import { startMockOpenAI } from '../../../test/helpers/mock-openai-upstream.ts'
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
