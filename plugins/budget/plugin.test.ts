import { expect, test } from 'bun:test'
import { budgetStatus } from '../../src/limits/budget-spend.ts'
import type { CostModel } from '../../src/limits/cost.ts'
import type { Outcome } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { budgetConfig } from './manifest.ts'
import { budget } from './plugin.ts'

/** 1 USD per 1,000 prompt tokens and per 1,000 completion tokens. */
const costModel: CostModel = { costUsd: (_t, tokens) => (tokens.prompt + tokens.completion) / 1000 }

async function setup(limitUsd: number) {
  const deps = { ...(await makeDeps()), costModel }
  await deps.limits.addBudget({ scope: { key_id: 'key_1' }, window: 'day', limit_usd: limitUsd })
  return { deps, hooks: pluginHooks(budget, budgetConfig.parse({}), deps) }
}

function request(maxTokens = 100) {
  const ctx = makeContext({ body: { model: 'openai/m', messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens } })
  ctx.principal = { method: 'managed_key', id: 'key_1', keyId: 'key_1' }
  ctx.target = { providerName: 'openai', providerType: 'openai', model: 'm', selector: 'openai/m' }
  return ctx
}

const outcome = (prompt: number, completion: number) =>
  ({
    status: 200,
    clientAborted: false,
    bytesOut: 0,
    responseHeaders: new Headers(),
    durationNs: 0,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      estimated: false,
    },
  }) as Outcome

test('50 concurrent requests: reservations stop at the limit; settled spend never exceeds it when answers stay within max_tokens', async () => {
  const { hooks, deps } = await setup(1) // 1 USD; each request reserves ~0.108 USD (≈8 prompt + 100 output tokens)
  const contexts = Array.from({ length: 50 }, () => request())
  const decisions = await Promise.all(contexts.map((c) => hooks.before!(c)))
  const admitted = contexts.filter((_, i) => (decisions[i] as { kind: string }).kind === 'continue')
  expect(admitted.length).toBe(9)
  const refused = contexts.find((_, i) => (decisions[i] as { kind: string }).kind === 'respond')!
  expect(refused.error).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'budget_exceeded' })
  expect(refused.error!.headers['retry-after']).toBeDefined()
  await Promise.all(admitted.map((c) => hooks.onComplete!(c, outcome(8, 60))))
  const status = await budgetStatus(deps.limits.budgets[0]!, deps.stores.counters)
  expect(status.spent_usd).toBeCloseTo(9 * 0.068, 5)
  expect(status.spent_usd).toBeLessThanOrEqual(1)
})

test('an exhausted budget refuses until its window resets; other keys are unaffected', async () => {
  const { hooks } = await setup(0.05)
  const first = request(10)
  expect(await hooks.before!(first)).toEqual({ kind: 'continue' })
  await hooks.onComplete!(first, outcome(20, 40)) // 0.06 USD: over the limit after the fact
  const next = request(1)
  expect(((await hooks.before!(next)) as { kind: string }).kind).toBe('respond')
  expect(next.error!.message).toContain('resets at')
  const other = makeContext({ body: { model: 'openai/m', messages: [] } })
  other.principal = { method: 'managed_key', id: 'key_2', keyId: 'key_2' }
  expect(await hooks.before!(other)).toEqual({ kind: 'continue' })
})

test('cache hits cost nothing', async () => {
  const { hooks, deps } = await setup(1)
  const ctx = request()
  await hooks.before!(ctx)
  ctx.cacheType = 'exact'
  await hooks.onComplete!(ctx, outcome(500, 500))
  expect((await budgetStatus(deps.limits.budgets[0]!, deps.stores.counters)).spent_usd).toBe(0)
})
