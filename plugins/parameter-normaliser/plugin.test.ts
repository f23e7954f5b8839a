import { describe, expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { parameterNormaliserConfig } from './manifest.ts'
import { parameterNormaliser } from './plugin.ts'
import { normaliseParameters } from './rules.ts'

describe('normaliseParameters', () => {
  test('OpenAI reasoning models take max_completion_tokens and default sampling', async () => {
    const { body, changes } = normaliseParameters({ max_tokens: 100, temperature: 0.2, store: true }, 'openai', 'o3-mini', true)
    expect(body).toEqual({ max_completion_tokens: 100, store: true })
    expect(changes).toHaveLength(2)
    expect(normaliseParameters({ max_tokens: 100, temperature: 0.2 }, 'openai', 'gpt-4o', true).changes).toEqual([])
  })

  test('compatible providers take max_tokens and lose OpenAI-only fields they reject', async () => {
    const { body, changes } = normaliseParameters({ max_completion_tokens: 50, store: true, metadata: { a: 1 }, top_k: 3 }, 'mistral', 'mistral-large', true)
    expect(body).toEqual({ max_tokens: 50, top_k: 3 })
    expect(changes).toContain('store dropped: not supported by mistral')
    expect(normaliseParameters({ metadata: { a: 1 } }, 'openrouter', 'x', true).body).toEqual({ metadata: { a: 1 } })
    expect(normaliseParameters({ store: true }, 'mistral', 'x', false).body).toEqual({ store: true })
  })

  test('translated providers are left to their adapters', async () => {
    expect(normaliseParameters({ max_completion_tokens: 5, store: true }, 'anthropic', 'claude', true).changes).toEqual([])
  })
})

test('as a rewriter: a revision with the changes in detail, or a no-change revision', async () => {
  const hooks = pluginHooks(parameterNormaliser, parameterNormaliserConfig.parse({}), await makeDeps())
  const ctx = makeContext({ body: { model: 'groq/llama', messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 9 } })
  ctx.target = { providerName: 'groq', providerType: 'groq', model: 'llama', selector: 'groq/llama' }
  hooks.before!(ctx)
  expect(ctx.body.max_tokens).toBe(9)
  expect(ctx.revisions[0]).toMatchObject({ rewriter: 'parameter-normaliser', detail: { provider_type: 'groq', changes: ['max_completion_tokens renamed to max_tokens'] } })
  const plain = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
  plain.target = { providerName: 'openai', providerType: 'openai', model: 'gpt-4o', selector: 'openai/gpt-4o' }
  hooks.before!(plain)
  expect(plain.revisions[0]).toMatchObject({ no_change: true })
  expect(plain.body).toBe(plain.originalBody as Record<string, unknown>)
})
