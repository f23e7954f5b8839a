import { expect, test } from 'bun:test'
import type { ProviderInstance } from '../../../src/providers/types.ts'
import { azureUrl as deploymentUrl, dropEmptyChoiceChunks } from './adapter.ts'

const classic: ProviderInstance = { name: 'azure', type: 'azure', baseUrl: 'https://res.openai.azure.com/openai', apiKey: 'k', staticModels: [], nativeResponses: true }

test('classic resources address the deployment with an api-version; the v1 API does not', () => {
  const azureUrl = (...args: Parameters<typeof deploymentUrl>): string => deploymentUrl(...args)
  expect(azureUrl(classic, 'gpt 4o', 'chat/completions')).toBe('https://res.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21')
  expect(azureUrl({ ...classic, apiVersion: '2025-01-01' }, 'x', 'responses')).toBe('https://res.openai.azure.com/openai/responses?api-version=2025-01-01')
  expect(azureUrl({ ...classic, baseUrl: 'https://res.openai.azure.com/openai/v1' }, 'x', 'chat/completions')).toBe('https://res.openai.azure.com/openai/v1/chat/completions')
})

test('the empty-choices prompt-filter chunk is dropped; usage chunks and [DONE] stay', async () => {
  const upstream = [
    'data: {"id":"","object":"","created":0,"model":"","choices":[],"prompt_filter_results":[]}\n\n',
    'data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n',
    'data: {"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\n',
    'data: [DONE]\n\n',
  ].join('')
  const out = await new Response(dropEmptyChoiceChunks(new Response(upstream).body!)).text()
  expect(out).not.toContain('prompt_filter_results')
  expect(out).toContain('"content":"hi"')
  expect(out).toContain('"usage"')
  expect(out).toEndWith('data: [DONE]\n\n')
})
