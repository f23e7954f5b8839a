/**
 * @module Where a budget's spend lives: one counter per budget and window start, in micro-dollars (integers,
 * so concurrent additions never round). Reservations and settled costs go into the same counter.
 */
import type { Counters } from '../stores/types.ts'
import type { Budget } from './definitions.ts'
import { windowBounds } from './windows.ts'

export const MICRO = 1_000_000

export function budgetWindow(budget: Budget, now: number) {
  const { start, end } = windowBounds(budget.window, now)
  return { key: `budget:${budget.id}:${start}`, start, end, ttlMs: end - now + 60_000 }
}

export interface BudgetStatus {
  id: string
  name: string | null
  scope: Budget['scope']
  window: Budget['window']
  limit_usd: number
  spent_usd: number
  remaining_usd: number
  window_start: string
  resets_at: string
}

export async function budgetStatus(budget: Budget, counters: Counters, now = Date.now()): Promise<BudgetStatus> {
  const w = budgetWindow(budget, now)
  const spent = (await counters.get(w.key)) / MICRO
  return {
    id: budget.id,
    name: budget.name ?? null,
    scope: budget.scope,
    window: budget.window,
    limit_usd: budget.limit_usd,
    spent_usd: Math.round(spent * MICRO) / MICRO,
    remaining_usd: Math.max(0, Math.round((budget.limit_usd - spent) * MICRO) / MICRO),
    window_start: new Date(w.start).toISOString(),
    resets_at: new Date(w.end).toISOString(),
  }
}
