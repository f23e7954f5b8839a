/**
 * @module /admin/budgets (with the spend of the current window against each limit) and /admin/rate-limits:
 * list, create, delete. Changes apply to the next request.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { budgetInputSchema, rateLimitInputSchema } from '../../limits/definitions.ts'
import { budgetStatus } from '../../limits/budget-spend.ts'
import { z } from 'zod'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, readJsonBody } from './admin-http.ts'

const limitView = z.object({ id: z.string() }).describe('The limit as configured (see the request body), with its id')
const budgetView = limitView.describe('The budget with the spend of its current window')
const listOf = (item: z.ZodType) => z.object({ object: z.literal('list'), data: z.array(item) })
const deleted = z.object({ id: z.string(), deleted: z.literal(true) })

const notFound = (what: string, id: string) =>
  new GatewayError({ status: 404, type: 'not_found_error', param: 'id', code: `${what}_not_found`, message: `No ${what.replace('_', ' ')} with id '${id}'.` })

/** Deletes one definition: `{ id, deleted: true }`, or a 404 when there is none. */
async function deleteOne(what: 'budget' | 'rate_limit', id: string, remove: (id: string) => Promise<boolean>): Promise<Response> {
  if (!(await remove(id))) throw notFound(what, id)
  return Response.json({ id, deleted: true })
}

const deleteDoc = (summary: string) => ({
  parse: 'none' as const,
  detail: adminDoc('limits', summary, undefined, adminResponses({ 200: jsonResponse(deleted, 'Deleted') }, [404])),
})

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
      { detail: adminDoc('limits', 'Budgets with the spend of their current window', undefined, adminResponses({ 200: jsonResponse(listOf(budgetView), 'The budgets') })) },
    )
    .post(
      '/budgets',
      (context) =>
        adminAnswer(gateway, context, async () => Response.json(await budgetStatus(await limits.addBudget(await readJsonBody(context.request)), stores.counters), { status: 201 })),
      {
        parse: 'none',
        detail: adminDoc(
          'limits',
          'Create a budget (USD per hour, day, week or month) for a key or a user path subtree',
          budgetInputSchema,
          adminResponses({ 201: jsonResponse(budgetView, 'The new budget') }, [400]),
        ),
      },
    )
    .delete('/budgets/:id', (context) => adminAnswer(gateway, context, () => deleteOne('budget', context.params.id, (id) => limits.deleteBudget(id))), deleteDoc('Delete a budget'))
    .get('/rate-limits', (context) => adminAnswer(gateway, context, async () => Response.json({ object: 'list', data: limits.rateLimits })), {
      detail: adminDoc('limits', 'Rate limits', undefined, adminResponses({ 200: jsonResponse(listOf(limitView), 'The rate limits') })),
    })
    .post('/rate-limits', (context) => adminAnswer(gateway, context, async () => Response.json(await limits.addRateLimit(await readJsonBody(context.request)), { status: 201 })), {
      parse: 'none',
      detail: adminDoc(
        'limits',
        'Create a rate limit for a key or a user path subtree',
        rateLimitInputSchema,
        adminResponses({ 201: jsonResponse(limitView, 'The new rate limit') }, [400]),
      ),
    })
    .delete(
      '/rate-limits/:id',
      (context) => adminAnswer(gateway, context, () => deleteOne('rate_limit', context.params.id, (id) => limits.deleteRateLimit(id))),
      deleteDoc('Delete a rate limit'),
    )
}
