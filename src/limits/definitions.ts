/**
 * @module Budgets (USD per window) and rate limits (requests and tokens per minute and per day, concurrent
 * requests, MCP tool calls per minute and per day), each bound to one managed key or one user path subtree. Declared in YAML or through the admin
 * API; the `budget` workflow feature enforces them.
 */
import { z } from 'zod'

export const limitScopeSchema = z
  .strictObject({
    key_id: z.string().min(1).optional(),
    user_path: z
      .string()
      .regex(/^\/[A-Za-z0-9._\-/]*$/, 'expected a user path such as /team-a')
      .optional(),
  })
  .refine((s) => (s.key_id === undefined) !== (s.user_path === undefined), { message: 'set exactly one of key_id and user_path' })
export type LimitScope = z.infer<typeof limitScopeSchema>

export const budgetInputSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  scope: limitScopeSchema,
  window: z.enum(['hour', 'day', 'week', 'month']),
  limit_usd: z.number().positive().max(1_000_000),
})
export type BudgetInput = z.infer<typeof budgetInputSchema>
export type Budget = BudgetInput & { id: string; created_at: string }

export const rateLimitInputSchema = z
  .strictObject({
    name: z.string().min(1).max(100).optional(),
    scope: limitScopeSchema,
    requests_per_minute: z.number().int().positive().optional(),
    tokens_per_minute: z.number().int().positive().optional(),
    requests_per_day: z.number().int().positive().optional(),
    tokens_per_day: z.number().int().positive().optional(),
    concurrent: z.number().int().positive().optional(),
    /** MCP tools/call requests (docs/mcp.md); counted apart from model requests. */
    tool_calls_per_minute: z.number().int().positive().optional(),
    tool_calls_per_day: z.number().int().positive().optional(),
  })
  .refine(
    (r) =>
      [r.requests_per_minute, r.tokens_per_minute, r.requests_per_day, r.tokens_per_day, r.concurrent, r.tool_calls_per_minute, r.tool_calls_per_day].some((v) => v !== undefined),
    {
      message: 'set at least one limit',
    },
  )
export type RateLimitInput = z.infer<typeof rateLimitInputSchema>
export type RateLimit = RateLimitInput & { id: string; created_at: string }

/** Whether a request (its key and user path) falls under a scope. */
export function inScope(scope: LimitScope, keyId: string | undefined, userPath: string | undefined): boolean {
  if (scope.key_id) return keyId === scope.key_id
  const root = scope.user_path!.replace(/\/+$/, '')
  return userPath !== undefined && (root === '' || userPath === root || userPath.startsWith(`${root}/`))
}
