/**
 * @module Budgets (feature `budget`, which requires `usage`). Before the upstream call the request's estimated
 * cost (prompt tokens counted, output tokens at max_tokens or an estimate, the units of work it asks for, at the
 * model's price: src/limits/request-estimate.ts) is reserved in
 * every budget that covers the key or user path, atomically against the limit; when the request completes the
 * reservation is replaced by the actual cost. Concurrent requests therefore cannot overspend by more than the
 * amount their real cost exceeds their estimate. An exhausted budget is a 429 `budget_exceeded` saying when it
 * resets.
 */
import { exhaustedBudget } from '../../src/limits/budget-exhausted.ts'
import { costAt } from '../../src/limits/cost.ts'
import { budgetWindow, MICRO } from '../../src/limits/budget-spend.ts'
import { inScope, type Budget } from '../../src/limits/definitions.ts'
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { estimatedPromptTokens, requestedOutputTokens } from '../../src/limits/request-estimate.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { unitUsageOf } from '../../src/usage/units.ts'
import { budgetManifest } from './manifest.ts'

interface Reservation {
  entries: { key: string; micro: number; ttlMs: number }[]
}

const reservationSlot = requestSlot<Reservation>('budget')

export const budget = definePlugin({
  manifest: budgetManifest,
  create({ stores, limits, costModel }) {
    const counters = stores.counters

    async function estimateMicro(ctx: RequestContext, defaultOutputTokens: number): Promise<number> {
      if (!ctx.target) return 0
      const { api } = endpoint(ctx.endpoint)
      const usd = costModel.costUsd(ctx.target, {
        prompt: await estimatedPromptTokens(api, ctx.body),
        cachedPrompt: 0,
        cacheWrite: 0,
        completion: requestedOutputTokens(api, ctx.body, defaultOutputTokens),
        unitUsage: api.usage?.requestedUnits?.(ctx.body),
      })
      return Math.round((usd ?? 0) * MICRO)
    }

    return {
      async before(ctx, config) {
        const applicable = limits.budgets.filter((b) => inScope(b.scope, ctx.principal?.keyId, ctx.userPath))
        if (applicable.length === 0 || !endpoint(ctx.endpoint).governance.limits) return CONTINUE
        const now = Date.now()
        // A batch's line: the batch holds its estimate already (src/batches/batch-budget.ts); only its real cost is added.
        const micro = ctx.batchLine?.budgetHeld ? 0 : await estimateMicro(ctx, config.default_output_tokens_estimate)
        const reservation: Reservation = { entries: [] }
        for (const b of applicable) {
          const w = budgetWindow(b, now)
          const limit = Math.round(b.limit_usd * MICRO)
          // An exhausted budget refuses even requests it cannot price; a priced one must fit.
          const result = ctx.batchLine?.budgetHeld ? { ok: true } : await counters.addWithin(w.key, Math.max(micro, 0), micro > 0 ? limit : limit - 1, w.ttlMs)
          if (!result.ok) {
            for (const e of reservation.entries) await counters.add(e.key, -e.micro, e.ttlMs)
            return respondWithError(ctx, exhaustedBudget(b, w.end, now))
          }
          reservation.entries.push({ key: w.key, micro, ttlMs: w.ttlMs })
        }
        ctx.setState(reservationSlot, reservation)
        return CONTINUE
      },
      async onComplete(ctx, outcome) {
        const r = ctx.state(reservationSlot)
        if (!r) return
        const u = outcome.usage
        const actualUsd =
          u && ctx.target && !ctx.cacheType
            ? // A provider batch API's answer costs its batch price (src/batches).
              costAt(
                costModel,
                ctx.target,
                { prompt: u.prompt_tokens, cachedPrompt: u.cached_tokens, cacheWrite: u.cache_write_tokens, completion: u.completion_tokens, unitUsage: unitUsageOf(u) },
                ctx.batchLine?.batchPriced === true,
              )
            : 0
        const actualMicro = Math.round((actualUsd ?? 0) * MICRO)
        for (const e of r.entries) await counters.add(e.key, actualMicro - e.micro, e.ttlMs)
      },
    }
  },
})
