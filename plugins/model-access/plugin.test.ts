import { expect, test } from 'bun:test'
import type { EndpointId, Principal } from '../../src/pipeline/context.ts'
import type { Decision } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { virtualModelResolver } from '../virtual-model-resolver/plugin.ts'
import { modelAccess } from './plugin.ts'

const deps = await makeDeps({
  OPENAI_API_KEY: 'k',
  OPENAI_MODELS: 'gpt-4o,gpt-4o-mini',
  GROQ_API_KEY: 'k',
  GROQ_MODELS: 'llama',
  VIRTUAL_MODELS: '[{"source":"fast","target":"groq/llama"},{"source":"smart","target":"openai/gpt-4o"}]',
})
const resolver = pluginHooks(virtualModelResolver, {}, deps)
const access = pluginHooks(modelAccess, {}, deps)

async function check(allowedModels: string[] | undefined, model: string, endpoint: EndpointId = 'chat.completions') {
  const ctx = makeContext({ endpoint, body: { model, messages: [] } })
  ctx.principal = { method: 'managed_key', id: 'key-1', keyId: 'key-1', allowedModels } satisfies Principal
  const resolved = (await resolver.before!(ctx)) as Decision
  expect(resolved.kind).toBe('continue')
  const decision = (await access.before!(ctx)) as Decision
  if (decision.kind === 'continue') return { status: 0, error: undefined }
  return { status: decision.response.status, error: ((await decision.response.json()) as { error: Record<string, unknown> }).error }
}

test('unrestricted keys may use every model', async () => {
  expect((await check(undefined, 'fast')).status).toBe(0)
})

test('exact selector, prefix pattern, virtual source and resolved target all count', async () => {
  expect((await check(['openai/gpt-4o'], 'openai/gpt-4o')).status).toBe(0)
  expect((await check(['openai/*'], 'gpt-4o-mini')).status).toBe(0)
  expect((await check(['fast'], 'fast')).status).toBe(0)
  expect((await check(['groq/llama'], 'fast')).status).toBe(0)
  expect((await check(['openai/*'], 'smart')).status).toBe(0)
})

test('anything else is 403 model_not_allowed', async () => {
  for (const [allowed, model] of [
    [['openai/gpt-4o'], 'openai/gpt-4o-mini'],
    [['fast'], 'groq/llama'],
    [['openai/*'], 'fast'],
    [['smart'], 'openai/gpt-4o'],
  ] as const) {
    const { status, error } = await check([...allowed], model)
    expect(status).toBe(403)
    expect(error).toMatchObject({ type: 'authentication_error', code: 'model_not_allowed', status_code: 403 })
  }
})

test('the Responses API is checked too; the model list endpoints are left to filtering', async () => {
  expect((await check(['fast'], 'openai/gpt-4o', 'responses')).status).toBe(403)
  const ctx = makeContext({ endpoint: 'models.list', method: 'GET', path: '/v1/models' })
  ctx.principal = { method: 'managed_key', id: 'k', allowedModels: ['fast'] }
  expect(((await access.before!(ctx)) as Decision).kind).toBe('continue')
})
