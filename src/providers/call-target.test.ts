import { expect, test } from 'bun:test'
import { GatewayError } from '../errors/gateway-error.ts'
import { endpoint } from '../protocols/endpoints.ts'
import { servingRoute } from './call-target.ts'
import { storedThreadSlot } from '../protocols/responses/stored-response.ts'
import { makeContext } from '../../test/helpers/plugin-harness.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, ResponsesLifecycle } from './types.ts'

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
  // Legacy completions neither: a chat model answers a prompt instead of continuing it, and has no suffix.
  expect(kind('completions', { ...chatOnly, completions: answer })).toBe('native')
  expect(kind('completions', everything)).toBe('unsupported_endpoint')
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

const asked: string[] = []
const lifecycle: ResponsesLifecycle = {
  retrieve: async (_call, id) => (asked.push(`retrieve ${id}`), new Response('{}')),
  delete: async (_call, id) => (asked.push(`delete ${id}`), new Response('{}')),
  cancel: async (_call, id) => (asked.push(`cancel ${id}`), new Response('{}')),
  inputItems: async (_call, id) => (asked.push(`input_items ${id}`), new Response('{}')),
  inputTokens: answer,
}
const keepsResponses: ProviderAdapter = { ...everything, responsesLifecycle: lifecycle }
const STORED_ROWS = ['responses.retrieve', 'responses.delete', 'responses.cancel', 'responses.input_items'] as const

test("a stored response's routes: the provider's own where it keeps responses, else the gateway's store", () => {
  for (const id of STORED_ROWS) {
    expect({ id, kind: kind(id, keepsResponses, true) }).toEqual({ id, kind: 'native' })
    expect({ id, kind: kind(id, keepsResponses, false) }).toEqual({ id, kind: 'fallback' })
    expect({ id, kind: kind(id, chatOnly, true) }).toEqual({ id, kind: 'fallback' })
  }
  expect(kind('responses.input_tokens', keepsResponses, true)).toBe('native')
  expect(kind('responses.input_tokens', keepsResponses, false)).toBe('fallback')
  expect(kind('responses.input_tokens', chatOnly, true)).toBe('fallback')
})

test('a provider that keeps responses is asked only for one it made natively; a thread translated there earlier is answered from the store', async () => {
  const call = (native: boolean | undefined) => {
    const ctx = makeContext({ endpoint: 'responses.retrieve', path: '/v1/responses/resp_1' })
    if (native !== undefined)
      ctx.setState(storedThreadSlot, {
        id: 'resp_1',
        owner: { principalId: 'k', userPath: '' },
        providerName: 'p',
        native,
        items: [],
        response: { id: 'resp_1', object: 'response' },
      })
    return { ctx, body: {} } as unknown as AdapterCall
  }
  const route = servingRoute(endpoint('responses.retrieve').api, keepsResponses, provider(true), '')
  if (route instanceof GatewayError || route.kind !== 'native') throw new Error('expected the native route')
  asked.length = 0
  expect(await ((await route.method(call(false))) as Response).json()).toEqual({ id: 'resp_1', object: 'response' })
  expect(asked).toEqual([])
  // Without the caller's own thread (nobody looked it up for this owner) nothing is asked: the 404 of an unknown id.
  expect(await route.method(call(undefined))).toMatchObject({ status: 404, code: 'response_not_found' })
  expect(asked).toEqual([])
  await route.method(call(true))
  expect(asked).toEqual(['retrieve resp_1'])
})
