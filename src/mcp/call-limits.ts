/**
 * @module Rate limits and budgets for MCP tool calls, on the same definitions (src/limits, the admin API's
 * /admin/rate-limits and /admin/budgets) and the same counters store as model requests, so every replica shares
 * them. A rate limit's `tool_calls_per_minute` and `tool_calls_per_day` count tools/call requests (model requests
 * are counted by its other fields, apart); a priced call (`price_per_call_usd`, `tool_prices_usd`) reserves its
 * price in every budget covering the caller, atomically against the limit, and is refunded when the call never
 * reached the server. Defining such a limit or price is what turns it on (there is no workflow for MCP
 * requests); `FEATURE_BUDGET=false` turns both off for the process.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { budgetWindow, MICRO } from '../limits/budget-spend.ts'
import { inScope } from '../limits/definitions.ts'
import type { LimitRegistry } from '../limits/registry.ts'
import { windowBounds } from '../limits/windows.ts'
import type { Counters } from '../stores/types.ts'

interface Taken {
  key: string
  delta: number
  ttlMs: number
}

export interface CallReservation {
  /** `reached`: the server answered (a result or its own error); otherwise the price is given back. */
  settle(reached: boolean): Promise<void>
}

const NOTHING_RESERVED: CallReservation = { settle: async () => {} }

export type Reserved = { ok: true; reservation: CallReservation } | { ok: false; error: GatewayError }

export class ToolCallLimits {
  constructor(
    private readonly limits: LimitRegistry,
    private readonly counters: Counters,
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether any rate limit counts tool calls (else an unpriced call has nothing to reserve). */
  get limitsToolCalls(): boolean {
    return this.enabled && this.limits.rateLimits.some((l) => l.tool_calls_per_minute !== undefined || l.tool_calls_per_day !== undefined)
  }

  async reserve(keyId: string | undefined, userPath: string | undefined, priceUsd: number): Promise<Reserved> {
    if (!this.enabled) return { ok: true, reservation: NOTHING_RESERVED }
    const now = this.now()
    const taken: Taken[] = []
    for (const limit of this.limits.rateLimits) {
      if (limit.tool_calls_per_minute === undefined && limit.tool_calls_per_day === undefined) continue
      if (!inScope(limit.scope, keyId, userPath)) continue
      for (const [label, window, max] of [
        ['tool calls per minute', 'minute', limit.tool_calls_per_minute],
        ['tool calls per day', 'day', limit.tool_calls_per_day],
      ] as const) {
        if (max === undefined) continue
        const bounds = windowBounds(window, now)
        const check = { key: `rl:${limit.id}:${label}:${bounds.start}`, delta: 1, ttlMs: bounds.end - now + 1000 }
        const result = await this.counters.addWithin(check.key, 1, max, check.ttlMs)
        if (!result.ok) {
          await this.rollBack(taken)
          const retryAfter = Math.max(1, Math.ceil((bounds.end - now) / 1000))
          return {
            ok: false,
            error: new GatewayError({
              status: 429,
              type: 'rate_limit_error',
              code: 'rate_limit_exceeded',
              headers: { 'retry-after': String(retryAfter) },
              message: `Rate limit reached: ${label} (limit ${max}) for ${limit.scope.key_id ? `key ${limit.scope.key_id}` : `user path ${limit.scope.user_path}`}. Try again in ${retryAfter}s.`,
            }),
          }
        }
        taken.push(check)
      }
    }
    const micro = Math.round(priceUsd * MICRO)
    if (micro > 0) {
      for (const budget of this.limits.budgets) {
        if (!inScope(budget.scope, keyId, userPath)) continue
        const w = budgetWindow(budget, now)
        const result = await this.counters.addWithin(w.key, micro, Math.round(budget.limit_usd * MICRO), w.ttlMs)
        if (!result.ok) {
          await this.rollBack(taken)
          const retryAfter = Math.max(1, Math.ceil((w.end - now) / 1000))
          return {
            ok: false,
            error: new GatewayError({
              status: 429,
              type: 'rate_limit_error',
              code: 'budget_exceeded',
              headers: { 'retry-after': String(retryAfter), 'x-budget-reset': new Date(w.end).toISOString() },
              message: `Budget exhausted: ${budget.limit_usd} USD per ${budget.window} for ${budget.scope.key_id ? `key ${budget.scope.key_id}` : `user path ${budget.scope.user_path}`} cannot pay ${priceUsd} USD for this tool call. It resets at ${new Date(w.end).toISOString()}.`,
            }),
          }
        }
        taken.push({ key: w.key, delta: micro, ttlMs: w.ttlMs })
      }
    }
    const charged = taken.filter((t) => t.key.startsWith('budget:'))
    if (charged.length === 0) return { ok: true, reservation: NOTHING_RESERVED }
    return { ok: true, reservation: { settle: (reached) => (reached ? Promise.resolve() : this.rollBack(charged)) } }
  }

  private async rollBack(taken: Taken[]): Promise<void> {
    for (const t of taken) await this.counters.add(t.key, -t.delta, t.ttlMs)
  }
}
