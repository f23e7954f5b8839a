/**
 * @module The refusal of a request (or a batch) that an exhausted budget cannot take: a 429 `budget_exceeded` saying
 * when the budget's window resets.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { Budget } from './definitions.ts'

export function exhaustedBudget(budget: Budget, resetsAt: number, now: number): GatewayError {
  const retryAfter = Math.max(1, Math.ceil((resetsAt - now) / 1000))
  return new GatewayError({
    status: 429,
    type: 'rate_limit_error',
    code: 'budget_exceeded',
    headers: { 'retry-after': String(retryAfter), 'x-budget-reset': new Date(resetsAt).toISOString() },
    message: `Budget exhausted: ${budget.limit_usd} USD per ${budget.window} for ${budget.scope.key_id ? `key ${budget.scope.key_id}` : `user path ${budget.scope.user_path}`}. It resets at ${new Date(resetsAt).toISOString()}.`,
  })
}
