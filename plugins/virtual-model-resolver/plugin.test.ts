import { expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { virtualModelResolver } from './plugin.ts'

const deps = await makeDeps({
  OPENAI_API_KEY: 'k',
  OPENAI_MODELS: 'gpt-4o,shared',
  GROQ_API_KEY: 'k',
  GROQ_MODELS: 'llama,shared',
  TOGETHER_API_KEY: 'k',
  TOGETHER_MODELS: 'meta-llama/Llama-3-70b',
  VIRTUAL_MODELS: '[{"source":"fast","target":"groq/llama"}]',
})
const hooks = pluginHooks(virtualModelResolver, {}, deps)

function resolve(model: string) {
  const ctx = makeContext({ body: { model, messages: [] } })
  const decision = hooks.before!(ctx) as { kind: string }
  return { ctx, decision }
}

test('<provider>/<model> splits on the first slash', () => {
  const { ctx } = resolve('openai/ft:gpt-4o/custom')
  expect(ctx.target).toEqual({ providerName: 'openai', providerType: 'openai', model: 'ft:gpt-4o/custom', selector: 'openai/ft:gpt-4o/custom' })
})

test('a virtual model maps to its target and marks the alias', () => {
  const { ctx } = resolve('fast')
  expect(ctx.target?.selector).toBe('groq/llama')
  expect(ctx.aliasUsed).toBe(true)
})

test('a bare name offered by exactly one provider resolves, also when it contains a slash', () => {
  expect(resolve('gpt-4o').ctx.target?.selector).toBe('openai/gpt-4o')
  expect(resolve('meta-llama/Llama-3-70b').ctx.target?.selector).toBe('together/meta-llama/Llama-3-70b')
})

test('ambiguous and unknown names are 404 model_not_found', () => {
  for (const model of ['shared', 'nobody/x', 'unknown']) {
    const { ctx, decision } = resolve(model)
    expect(decision.kind).toBe('respond')
    expect(ctx.error).toMatchObject({ status: 404, code: 'model_not_found' })
    expect(ctx.error?.message).toContain('/v1/models')
  }
})

test('endpoints without a model are left alone', () => {
  const ctx = makeContext({ endpoint: 'models.list' })
  expect(hooks.before!(ctx)).toEqual({ kind: 'continue' })
  expect(ctx.target).toBeUndefined()
})

test('Anthropic-format requests (messages, count_tokens) are routed too', () => {
  for (const endpoint of ['messages', 'messages.count_tokens'] as const) {
    const ctx = makeContext({ endpoint, body: { model: 'fast', max_tokens: 5, messages: [] } })
    expect(hooks.before!(ctx)).toEqual({ kind: 'continue' })
    expect(ctx.target?.selector).toBe('groq/llama')
  }
})
