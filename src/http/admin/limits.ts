/**
 * @module /admin/budgets (with the spend of the current window against each limit) and /admin/rate-limits:
 * list, create, delete. Changes apply to the next request. A scoped principal sees and changes only the limits
 * inside its subtree (src/admin/limit-scope.ts); every change is a security event with the limit before and after.
 */
import { Elysia } from 'elysia'
import { type KeyLookup, limitInAdminScope, limitUserPath } from '../../admin/limit-scope.ts'
import { inAdminScope, outsideScope } from '../../admin/scope.ts'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { budgetInputSchema, type LimitScope, rateLimitInputSchema } from '../../limits/definitions.ts'
import { budgetStatus } from '../../limits/budget-spend.ts'
import { z } from 'zod'
import { recordAdminChange, type RouteContext } from './admin-events.ts'
import { type AdminActor, adminAnswer, adminDoc, adminResponses, jsonResponse, readJsonBody } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const limitView = z.object({ id: z.string() }).describe('The limit as configured (see the request body), with its id')
const budgetView = limitView.describe('The budget with the spend of its current window')
const listOf = (item: z.ZodType) => z.object({ object: z.literal('list'), data: z.array(item) })
const deleted = z.object({ id: z.string(), deleted: z.literal(true) })

type What = 'budget' | 'rate_limit'

const notFound = (what: What, id: string) =>
  new GatewayError({ status: 404, type: 'not_found_error', param: 'id', code: `${what}_not_found`, message: `No ${what.replace('_', ' ')} with id '${id}'.` })

const deleteDoc = (summary: string) => ({
  parse: 'none' as const,
  permission: 'limits.write' as const,
  detail: adminDoc('limits', summary, undefined, adminResponses({ 200: jsonResponse(deleted, 'Deleted') }, [404])),
})

export function limitRoutes(gateway: Gateway) {
  const { limits, stores } = gateway
  const keys: KeyLookup = (id) => gateway.keys.known(id)
  const visible = <L extends { scope: LimitScope }>(actor: AdminActor, list: readonly L[]) => list.filter((l) => limitInAdminScope(actor.admin.scope, l.scope, keys))

  /** Refuses a new limit outside the actor's subtree, or on a user path that is not one; the rest of an invalid one is the registry's 400. */
  function checkNew(actor: AdminActor, scope: LimitScope | undefined): void {
    if (!scope) return
    const path = limitUserPath(scope, keys)
    const own = actor.admin.scope
    if (own !== null && !inAdminScope(own, path)) throw outsideScope(own, scope.key_id ? `The key ${scope.key_id}` : `The user path ${scope.user_path}`, 'scope')
  }

  /** Where its security events are filed: its user path, or `/` (unscoped readers only) when it has none. */
  const filedUnder = (scope: LimitScope) => {
    try {
      return limitUserPath(scope, keys) ?? '/'
    } catch {
      return '/'
    }
  }

  const recorded = (context: RouteContext, actor: AdminActor, what: What, change: 'created' | 'deleted', limit: { id: string; scope: LimitScope }) =>
    recordAdminChange(gateway, context, actor, {
      event_type: `${what}.${change}`,
      subject_id: limit.id,
      user_path: filedUnder(limit.scope),
      before: change === 'created' ? null : limit,
      after: change === 'created' ? limit : null,
      status_code: change === 'created' ? 201 : 200,
      message: `${change} ${what.replace('_', ' ')} ${limit.id}`,
    })

  /** Deletes one definition inside the actor's subtree: `{ id, deleted: true }`, or a 404 when there is none (there). */
  async function deleteOne(context: RouteContext, actor: AdminActor, what: What, id: string): Promise<Response> {
    const list: readonly { id: string; scope: LimitScope }[] = what === 'budget' ? limits.budgets : limits.rateLimits
    const limit = visible(actor, list).find((l) => l.id === id)
    if (!limit || !(await (what === 'budget' ? limits.deleteBudget(id) : limits.deleteRateLimit(id)))) throw notFound(what, id)
    recorded(context, actor, what, 'deleted', limit)
    return Response.json({ id, deleted: true })
  }

  return new Elysia({ name: 'gateway/admin/limits' })
    .use(adminPermission)
    .get(
      '/budgets',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const data = await Promise.all(visible(actor, limits.budgets).map((b) => budgetStatus(b, stores.counters)))
          return Response.json({ object: 'list', data })
        }),
      {
        permission: 'limits.read',
        detail: adminDoc('limits', 'Budgets with the spend of their current window', undefined, adminResponses({ 200: jsonResponse(listOf(budgetView), 'The budgets') })),
      },
    )
    .post(
      '/budgets',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const raw = await readJsonBody(context.request)
          checkNew(actor, budgetInputSchema.safeParse(raw).data?.scope)
          const budget = await limits.addBudget(raw)
          recorded(context, actor, 'budget', 'created', budget)
          return Response.json(await budgetStatus(budget, stores.counters), { status: 201 })
        }),
      {
        parse: 'none',
        permission: 'limits.write',
        detail: adminDoc(
          'limits',
          'Create a budget (USD per hour, day, week or month) for a key or a user path subtree',
          budgetInputSchema,
          adminResponses({ 201: jsonResponse(budgetView, 'The new budget') }, [400]),
        ),
      },
    )
    .delete('/budgets/:id', (context) => adminAnswer(gateway, context, (actor) => deleteOne(context, actor, 'budget', context.params.id)), deleteDoc('Delete a budget'))
    .get('/rate-limits', (context) => adminAnswer(gateway, context, async (actor) => Response.json({ object: 'list', data: visible(actor, limits.rateLimits) })), {
      permission: 'limits.read',
      detail: adminDoc('limits', 'Rate limits', undefined, adminResponses({ 200: jsonResponse(listOf(limitView), 'The rate limits') })),
    })
    .post(
      '/rate-limits',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const raw = await readJsonBody(context.request)
          checkNew(actor, rateLimitInputSchema.safeParse(raw).data?.scope)
          const limit = await limits.addRateLimit(raw)
          recorded(context, actor, 'rate_limit', 'created', limit)
          return Response.json(limit, { status: 201 })
        }),
      {
        parse: 'none',
        permission: 'limits.write',
        detail: adminDoc(
          'limits',
          'Create a rate limit for a key or a user path subtree',
          rateLimitInputSchema,
          adminResponses({ 201: jsonResponse(limitView, 'The new rate limit') }, [400]),
        ),
      },
    )
    .delete('/rate-limits/:id', (context) => adminAnswer(gateway, context, (actor) => deleteOne(context, actor, 'rate_limit', context.params.id)), deleteDoc('Delete a rate limit'))
}
