import { afterAll, expect, test } from 'bun:test'
import { startMockOpenAI } from '../../../test/helpers/mock-openai-upstream.ts'
import { openaiCompatibleAdapter, modelIdsFrom } from './adapter.ts'

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

test('a failed list is an error (the catalog then falls back to the static list)', async () => {
  await expect(
    openaiCompatibleAdapter.listModels({ name: 'p', type: 'openai', baseUrl: mock.url, apiKey: 'wrong', staticModels: [], nativeResponses: true }, AbortSignal.timeout(2000)),
  ).rejects.toThrow('HTTP 401')
  expect(() => modelIdsFrom({ nope: 1 })).toThrow()
})
