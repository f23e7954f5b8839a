/**
 * @module /admin/batches: the batches of the principal's subtree (status, counts, cost so far, owner), and one batch
 * with its lines (each line's state, answer status, cost and the id of its audit entry, for the dashboard's links).
 * Reads only: a batch is cancelled by its owner through /v1/batches. Line bodies and answers are not shown here
 * (they are in the owner's files and, with body logging, in the audit entries, under their own permissions).
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { confinedPath, inAdminScope } from '../../admin/scope.ts'
import { batchView, type BatchLine, type BatchRecord } from '../../batches/batch-record.ts'
import { batchErrors } from '../../batches/batch-errors.ts'
import { adminBatchDetail, adminBatchList } from '../../batches/admin-views.ts'
import { gatewayErrors } from '../../errors/gateway-error.ts'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, queryRecord } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const listQuery = z.object({
  user_path: z.string().optional(),
  after: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
})
const linesQuery = z.object({
  from: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
})

function parse<T extends z.ZodType>(schema: T, request: Request): z.infer<T> {
  const result = schema.safeParse(queryRecord(request))
  if (result.success) return result.data
  throw gatewayErrors.fromZod(result.error, { subject: 'query' })
}

const adminBatchView = (b: BatchRecord) => ({ ...batchView(b), owner: b.owner.principalId, user_path: b.owner.userPath || '/', labels: b.labels, cost_usd: b.costUsd })

function lineView(line: BatchLine) {
  const result = line.result
  const body = result?.kind === 'response' ? (result.body as { error?: { code?: unknown } } | null) : null
  const answerCode = typeof body?.error?.code === 'string' ? body.error.code : null
  return {
    index: line.index,
    custom_id: line.customId,
    state: line.state,
    target: line.target,
    status_code: result?.kind === 'response' ? result.statusCode : null,
    error_code: result?.kind === 'error' ? result.code : answerCode,
    audit_id: line.auditId,
    cost_usd: line.costUsd,
  }
}

export function batchAdminRoutes(gateway: Gateway) {
  const store = gateway.stores.batches
  return new Elysia({ name: 'gateway/admin/batches' })
    .use(adminPermission)
    .get(
      '/batches',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const q = parse(listQuery, context.request)
          const found = await store.list({ userPath: confinedPath(actor.admin.scope, q.user_path), after: q.after, limit: q.limit + 1 })
          return Response.json({ object: 'list', data: found.slice(0, q.limit).map(adminBatchView), has_more: found.length > q.limit })
        }),
      {
        permission: 'batches.read',
        detail: {
          ...adminDoc(
            'batches',
            'Batches of your subtree, newest first: status, counts, cost so far, owner',
            undefined,
            adminResponses({ 200: jsonResponse(adminBatchList, 'The batches') }, [400]),
          ),
          parameters: [
            { name: 'user_path', in: 'query', schema: { type: 'string' as const } },
            { name: 'after', in: 'query', description: 'A batch id: the page starts after it.', schema: { type: 'string' as const } },
            { name: 'limit', in: 'query', schema: { type: 'integer' as const, minimum: 1, maximum: 100, default: 20 } },
          ],
        },
      },
    )
    .get(
      '/batches/:id',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const q = parse(linesQuery, context.request)
          const batch = await store.get(context.params.id)
          // Outside the subtree reads as unknown: a scoped principal learns nothing of other tenants' batches.
          if (!batch || !inAdminScope(actor.admin.scope, batch.owner.userPath)) throw batchErrors.batchNotFound(context.params.id)
          const lines = await store.lines(batch.id, { fromIndex: q.from, limit: q.limit })
          const nextFrom = lines.length === q.limit ? lines.at(-1)!.index + 1 : null
          return Response.json({ batch: adminBatchView(batch), lines: lines.map(lineView), next_from: nextFrom })
        }),
      {
        permission: 'batches.read',
        detail: {
          ...adminDoc(
            'batches',
            "One batch with its lines' progress (from, limit): state, answer status, cost, audit entry",
            undefined,
            adminResponses({ 200: jsonResponse(adminBatchDetail, 'The batch and a page of its lines') }, [400, 404]),
          ),
          parameters: [
            { name: 'from', in: 'query', description: 'First line index of the page.', schema: { type: 'integer' as const, minimum: 0, default: 0 } },
            { name: 'limit', in: 'query', schema: { type: 'integer' as const, minimum: 1, maximum: 1000, default: 100 } },
          ],
        },
      },
    )
}
