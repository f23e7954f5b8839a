import { describe, expect, test } from 'bun:test'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { parameterNormaliserConfig } from './manifest.ts'
import { parameterNormaliser } from './plugin.ts'
import { clampOutputTokens, normaliseParameters } from './rules.ts'
import { outputLimitFor } from '../../src/models/catalog.ts'
import { bodyForAttempt } from '../../src/pipeline/target-adaptation.ts'
import type { ResolvedTarget } from '../../src/providers/types.ts'

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
  await hooks.before!(ctx)
  expect(ctx.body.max_tokens).toBe(9)
  expect(ctx.revisions[0]).toMatchObject({ rewriter: 'parameter-normaliser', detail: { provider_type: 'groq', changes: ['max_completion_tokens renamed to max_tokens'] } })
  const plain = makeContext({ body: { model: 'openai/gpt-4o', messages: [] } })
  plain.target = { providerName: 'openai', providerType: 'openai', model: 'gpt-4o', selector: 'openai/gpt-4o' }
  await hooks.before!(plain)
  expect(plain.revisions[0]).toMatchObject({ no_change: true })
  expect(plain.body).toBe(plain.originalBody as Record<string, unknown>)
})

describe('output tokens clamped to the model limit', () => {
  const route = (ctx: ReturnType<typeof makeContext>, providerType: 'openai' | 'anthropic' | 'groq', model: string) => {
    ctx.target = { providerName: providerType, providerType, model, selector: `${providerType}/${model}` }
    return ctx
  }

  test('clampOutputTokens: every field above the limit, nothing else', () => {
    const fields = ['max_tokens', 'max_output_tokens']
    const { body, changes } = clampOutputTokens({ max_tokens: 32000, max_output_tokens: 100, temperature: 1 }, fields, 16384, 'openai/gpt-4o')
    expect(body).toEqual({ max_tokens: 16384, max_output_tokens: 100, temperature: 1 })
    expect(changes).toEqual(['max_tokens clamped from 32000 to 16384 (output limit of openai/gpt-4o)'])
    const same = { max_tokens: 5 }
    expect(clampOutputTokens(same, fields, 10, 'x').body).toBe(same)
    // Only the API's own fields: chat's `max_completion_tokens` is not a Messages field.
    expect(clampOutputTokens({ max_completion_tokens: 99 }, ['max_tokens'], 10, 'x').changes).toEqual([])
  })

  test('on /v1/messages (Claude Code asks for 32000) and /v1/responses, with a revision naming the clamp', async () => {
    const hooks = parameterNormaliser.create(await makeDeps())
    const settings = parameterNormaliserConfig.parse({})
    const messages = route(
      makeContext({ endpoint: 'messages', body: { model: 'cc', max_tokens: 32000, messages: [{ role: 'user', content: 'x' }] } }),
      'openai',
      'gpt-4o-mini-2024-07-18',
    )
    await hooks.before!(messages, settings)
    expect(messages.body.max_tokens).toBe(16384)
    expect(messages.revisions[0]).toMatchObject({
      rewriter: 'parameter-normaliser',
      detail: { changes: ['max_tokens clamped from 32000 to 16384 (output limit of openai/gpt-4o-mini-2024-07-18)'] },
    })
    const responses = route(makeContext({ endpoint: 'responses', body: { model: 'x', input: 'hi', max_output_tokens: 50000 } }), 'anthropic', 'claude-3-5-haiku-latest')
    await hooks.before!(responses, settings)
    expect(responses.body.max_output_tokens).toBe(8192)
  })

  test('unknown models and requests within the limit are left alone; config overrides the table; the switch turns it off', async () => {
    const hooks = parameterNormaliser.create(await makeDeps({ GATEWAY_CONFIG: '' }))
    const settings = parameterNormaliserConfig.parse({})
    const unknown = route(makeContext({ endpoint: 'messages', body: { model: 'x', max_tokens: 999999, messages: [] } }), 'groq', 'brand-new-model')
    await hooks.before!(unknown, settings)
    expect(unknown.body.max_tokens).toBe(999999)
    const off = route(makeContext({ body: { model: 'x', max_tokens: 32000, messages: [] } }), 'openai', 'gpt-4o')
    await hooks.before!(off, parameterNormaliserConfig.parse({ clamp_max_tokens: false }))
    expect(off.body.max_tokens).toBe(32000)
    expect(outputLimitFor({ selector: 'openai/gpt-4o', model: 'gpt-4o' }, { 'openai/gpt-4o': 4096 })).toBe(4096)
    expect(outputLimitFor({ selector: 'openai/gpt-4o', model: 'gpt-4o' })).toBe(16384)
  })
})

describe('per attempt: a failover target gets the body made for its own model', () => {
  const target = (providerType: 'openai' | 'anthropic' | 'groq', model: string): ResolvedTarget => ({
    providerName: providerType,
    providerType,
    model,
    selector: `${providerType}/${model}`,
  })
  const attempt = (ctx: ReturnType<typeof makeContext>, t: ResolvedTarget) => {
    const body = bodyForAttempt(ctx, t)
    ctx.attempts.push({
      seq: ctx.attempts.length + 1,
      kind: 'failover',
      model: t.model,
      provider_name: t.providerName,
      provider_type: t.providerType,
      started_at: '',
      duration_ns: 0,
      success: false,
      status_code: 503,
    })
    return body
  }

  test('clamped for its limit, the provider’s rules applied; retries listed on one revision; the primary and a target the body suits get ctx.body', async () => {
    const hooks = parameterNormaliser.create(await makeDeps())
    const ctx = makeContext({ body: { model: 'x', max_tokens: 32000, store: true, messages: [{ role: 'user', content: 'x' }] } })
    ctx.target = target('openai', 'gpt-4o')
    await hooks.before!(ctx, parameterNormaliserConfig.parse({}))
    expect(ctx.body.max_tokens).toBe(16384)
    expect(attempt(ctx, ctx.target)).toBe(ctx.body)
    const haiku = target('anthropic', 'claude-3-5-haiku-latest')
    expect(attempt(ctx, haiku)).toMatchObject({ max_tokens: 8192, store: true })
    expect(attempt(ctx, haiku)).toMatchObject({ max_tokens: 8192 })
    const groq = target('groq', 'some-model')
    // No known limit: the client's own 32000, and groq's rules.
    const forGroq = attempt(ctx, groq)
    expect(forGroq.max_tokens).toBe(32000)
    expect(forGroq.store).toBeUndefined()
    const another = target('openai', 'gpt-4o-2024-08-06')
    expect(attempt(ctx, another)).toBe(ctx.body)
    expect(ctx.revisions.slice(1).map((r) => r.detail)).toEqual([
      {
        provider_type: 'anthropic',
        target: 'anthropic/claude-3-5-haiku-latest',
        attempts: [2, 3],
        changes: ['max_tokens clamped from 32000 to 8192 (output limit of anthropic/claude-3-5-haiku-latest)'],
      },
      { provider_type: 'groq', target: 'groq/some-model', attempts: [4], changes: ['store dropped: not supported by groq'] },
    ])
  })

  test('switched off in the workflow: every attempt gets ctx.body', async () => {
    const hooks = parameterNormaliser.create(await makeDeps())
    const ctx = makeContext({ body: { model: 'x', max_tokens: 32000, messages: [] } })
    ctx.target = target('openai', 'gpt-4o')
    await hooks.before!(ctx, parameterNormaliserConfig.parse({ enabled: false }))
    expect(attempt(ctx, target('anthropic', 'claude-3-5-haiku-latest'))).toBe(ctx.body)
  })
})
