import { expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { endpoint } from '../protocols/endpoints.ts'
import { servingRoute } from './call-target.ts'
import type { ProviderAdapter, ProviderInstance } from './types.ts'

const answer = async () => new Response('{}')
const chatOnly: ProviderAdapter = { id: 'chat-only', chatCompletions: answer, listModels: async () => [] }
const everything: ProviderAdapter = { ...chatOnly, id: 'everything', responses: answer, messages: answer, countMessageTokens: answer }
const provider = (nativeResponses: boolean): ProviderInstance => ({ name: 'p', type: 'openai', baseUrl: 'http://x', staticModels: [], nativeResponses })

const kind = (id: Parameters<typeof endpoint>[0], adapter: ProviderAdapter, nativeResponses = false, model = 'm') => {
  const route = servingRoute(endpoint(id).api, adapter, provider(nativeResponses), model)
  return route instanceof GatewayError ? route.code : route.kind
}

test('each API is served natively where the provider speaks it, else over chat, else by the gateway', () => {
  expect(kind('chat.completions', chatOnly)).toBe('native')
  expect(kind('responses', everything, true)).toBe('native')
  expect(kind('responses', everything, false)).toBe('over_chat')
  expect(kind('responses', chatOnly, true)).toBe('over_chat')
  expect(kind('messages', everything)).toBe('native')
  expect(kind('messages', chatOnly)).toBe('over_chat')
  expect(kind('messages.count_tokens', everything)).toBe('native')
  expect(kind('messages.count_tokens', chatOnly)).toBe('fallback')
  expect(kind('embeddings', { ...chatOnly, embeddings: answer })).toBe('native')
  // Embeddings have no translation over chat: a chat-only provider is refused.
  expect(kind('embeddings', everything)).toBe('unsupported_endpoint')
})

test('a provider that speaks an API for some models only serves the others over chat', () => {
  const claudeOnly: ProviderAdapter = { ...everything, speaksNatively: (api, _provider, model) => api === 'messages' && model.startsWith('claude') }
  expect(kind('messages', claudeOnly, false, 'claude-sonnet-4')).toBe('native')
  expect(kind('messages', claudeOnly, false, 'nova-pro')).toBe('over_chat')
  expect(kind('responses', claudeOnly, true, 'claude-sonnet-4')).toBe('over_chat')
})

test('the native method is the adapter’s own', () => {
  const route = servingRoute(endpoint('messages').api, everything, provider(false), 'm')
  expect(route).toEqual({ kind: 'native', method: everything.messages! })
})

test('an API the provider cannot serve in any way is a 400 naming both', () => {
  const refused = servingRoute(endpoint('models.list').api, everything, provider(true), 'm')
  expect(refused).toBeInstanceOf(GatewayError)
  expect(refused).toMatchObject({ status: 400, code: 'unsupported_endpoint', provider: 'p' })
  expect((refused as GatewayError).message).toContain('local API')
})
