import { expect, test } from 'bun:test'
import type { AdapterCall, ProviderAdapter } from '../../src/providers/types.ts'
import { answered, makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { singleTargetRouter } from './plugin.ts'

const calls: AdapterCall[] = []
const fakeAdapter: ProviderAdapter = {
  id: 'openai-compatible',
  async chatCompletions(call) {
    calls.push(call)
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json', 'set-cookie': 'a=b', 'content-encoding': 'gzip', 'x-request-id': 'up-1' } })
  },
  listModels: async () => [],
}

test('calls the target with the upstream model id and cleans the response headers', async () => {
  const deps = await makeDeps({ GROQ_API_KEY: 'k' }, { 'openai-compatible': fakeAdapter })
  const hooks = pluginHooks(singleTargetRouter, {}, deps)
  const ctx = makeContext({ body: { model: 'groq/llama', messages: [], extra: 1 } })
  ctx.target = { providerName: 'groq', providerType: 'groq', model: 'llama', selector: 'groq/llama' }
  const res = answered(await hooks.dispatch!(ctx))
  expect(calls[0]!.body).toEqual({ model: 'llama', messages: [], extra: 1 })
  expect(calls[0]!.attemptKind).toBe('primary')
  expect(ctx.body.model).toBe('groq/llama')
  expect(res.headers.get('set-cookie')).toBeNull()
  expect(res.headers.get('content-encoding')).toBeNull()
  expect(res.headers.get('x-upstream-request-id')).toBe('up-1')
  expect(res.headers.get('x-request-id')).toBe(ctx.requestId)
})

test('a provider type without an adapter is a 501; Responses on a chat-only provider goes through chat', async () => {
  const deps = await makeDeps({ ANTHROPIC_API_KEY: 'k', MISTRAL_API_KEY: 'k' }, { 'openai-compatible': fakeAdapter })
  const hooks = pluginHooks(singleTargetRouter, {}, deps)
  const ctx = makeContext({ body: { model: 'anthropic/claude', messages: [] } })
  ctx.target = { providerName: 'anthropic', providerType: 'anthropic', model: 'claude', selector: 'anthropic/claude' }
  expect(await hooks.dispatch!(ctx)).toMatchObject({ status: 501, code: 'provider_not_supported' })
  const responses = makeContext({ endpoint: 'responses', body: { model: 'mistral/m', input: 'x' } })
  responses.target = { providerName: 'mistral', providerType: 'mistral', model: 'm', selector: 'mistral/m' }
  const res = answered(await hooks.dispatch!(responses))
  expect(calls.at(-1)!.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
  expect(((await res.json()) as { object: string }).object).toBe('response')
})
