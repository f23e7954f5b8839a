/**
 * @module /admin/budgets (with the spend of the current window against each limit) and /admin/rate-limits:
 * list, create, delete. Changes apply to the next request.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { budgetInputSchema, rateLimitInputSchema } from '../../limits/definitions.ts'
import { budgetStatus } from '../../limits/budget-spend.ts'
import { adminAnswer, adminDoc, readJsonBody } from './admin-http.ts'

const notFound = (what: string, id: string) => new GatewayError({ status: 404, type: 'not_found_error', param: 'id', code: `${what}_not_found`, message: `No ${what.replace('_', ' ')} with id '${id}'.` })

export function limitRoutes(gateway: Gateway) {
  const { limits, stores } = gateway
  return new Elysia({ name: 'gateway/admin/limits' })
    .get(
      '/budgets',
      (context) =>
        adminAnswer(gateway, context, async () => {
          const data = await Promise.all(limits.budgets.map((b) => budgetStatus(b, stores.counters)))
          return Response.json({ object: 'list', data })
        }),
      { detail: adminDoc('limits', 'Budgets with the spend of their current window') },
    )
    .post(
      '/budgets',
      (context) => adminAnswer(gateway, context, async () => Response.json(await budgetStatus(await limits.addBudget(await readJsonBody(context.request)), stores.counters), { status: 201 })),
      { parse: 'none', detail: adminDoc('limits', 'Create a budget (USD per hour, day, week or month) for a key or a user path subtree', budgetInputSchema) },
    )
    .delete(
      '/budgets/:id',
      (context) =>
        adminAnswer(gateway, context, async () => {
          if (!(await limits.deleteBudget(context.params.id))) throw notFound('budget', context.params.id)
          return Response.json({ id: context.params.id, deleted: true })
        }),
      { parse: 'none', detail: adminDoc('limits', 'Delete a budget') },
    )
    .get('/rate-limits', (context) => adminAnswer(gateway, context, async () => Response.json({ object: 'list', data: limits.rateLimits })), {
      detail: adminDoc('limits', 'Rate limits'),
    })
    .post(
      '/rate-limits',
      (context) => adminAnswer(gateway, context, async () => Response.json(await limits.addRateLimit(await readJsonBody(context.request)), { status: 201 })),
      { parse: 'none', detail: adminDoc('limits', 'Create a rate limit for a key or a user path subtree', rateLimitInputSchema) },
    )
    .delete(
      '/rate-limits/:id',
      (context) =>
        adminAnswer(gateway, context, async () => {
          if (!(await limits.deleteRateLimit(context.params.id))) throw notFound('rate_limit', context.params.id)
          return Response.json({ id: context.params.id, deleted: true })
        }),
      { parse: 'none', detail: adminDoc('limits', 'Delete a rate limit') },
    )
}
