/**
 * @module /admin/usage/summary and /admin/usage/breakdown (requests, tokens and cost over a date range, by model,
 * provider, key or user path, optionally per day), and /admin/pricing (the effective price table and its
 * overrides). A scoped principal's sums cover its subtree only; prices apply to every tenant, so only an unscoped
 * admin changes them (each change a security event with the price before and after).
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { USAGE_GROUPS } from '../../stores/types.ts'
import { modelPriceSchema } from '../../usage/pricing.ts'
import { confinedPath } from '../../admin/scope.ts'
import { recordAdminChange } from './admin-events.ts'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, queryRecord, readJsonBody } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const DAY_MS = 86_400_000
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'not a real date')

export const usageRangeQuery = z.object({
  days: z.coerce.number().int().min(1).max(3650).default(30),
  start_date: date.optional(),
  end_date: date.optional(),
})
const breakdownQuery = usageRangeQuery.extend({
  by: z.enum(USAGE_GROUPS).default('model'),
  interval: z.enum(['day']).optional(),
})

const rangeView = z.object({ start: z.string(), end: z.string() })
const usageTotals = rangeView.catchall(z.unknown()).describe('The range with requests, tokens and cost summed over it')
const usageBreakdown = rangeView.extend({ by: z.enum(USAGE_GROUPS), interval: z.enum(['day']).nullable(), data: z.array(z.record(z.string(), z.unknown())) })
const priceList = z.object({ object: z.literal('list'), unit: z.string(), data: z.array(z.record(z.string(), z.unknown())) })
const RANGE_PARAMS = [
  {
    name: 'days',
    in: 'query',
    description: 'Days up to now; ignored when start_date is given. An empty value counts as not given.',
    schema: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
  },
  { name: 'start_date', in: 'query', description: 'First day, YYYY-MM-DD (UTC, inclusive).', schema: { type: 'string', format: 'date' } },
  { name: 'end_date', in: 'query', description: 'Last day, YYYY-MM-DD (UTC, inclusive).', schema: { type: 'string', format: 'date' } },
] as const

function parseQuery<T extends z.ZodType>(schema: T, request: Request): z.infer<T> {
  const result = schema.safeParse(queryRecord(request))
  if (result.success) return result.data
  throw gatewayErrors.fromZod(result.error, { subject: 'query' })
}

/** `start_date`..`end_date` inclusive (UTC days); else the last `days` days up to now. */
export function rangeOf(q: z.infer<typeof usageRangeQuery>, now = Date.now()): { fromMs: number; toMs: number; start: string; end: string } {
  // Open-ended ranges include the current millisecond: a request that just finished may have started in it.
  const toMs = q.end_date ? Date.parse(`${q.end_date}T00:00:00Z`) + DAY_MS : now + 1
  const fromMs = q.start_date ? Date.parse(`${q.start_date}T00:00:00Z`) : toMs - q.days * DAY_MS
  if (fromMs >= toMs) throw gatewayErrors.invalidRequest('start_date: must not be after end_date', 'start_date')
  return { fromMs, toMs, start: new Date(fromMs).toISOString(), end: new Date(toMs).toISOString() }
}

export function usageRoutes(gateway: Gateway) {
  const { usage } = gateway
  /** The current override of a model, as a price event's before or after. */
  const overrideOf = async (model: string) => (await usage.overrides.all())[model] ?? null
  return new Elysia({ name: 'gateway/admin/usage' })
    .use(adminPermission)
    .get(
      '/usage/summary',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const range = rangeOf(parseQuery(usageRangeQuery, context.request))
          await usage.flush()
          return Response.json({ start: range.start, end: range.end, ...(await usage.reader.totals({ ...range, userPath: confinedPath(actor.admin.scope, undefined) })) })
        }),
      {
        permission: 'usage.read',
        detail: {
          ...adminDoc(
            'usage',
            'Requests, tokens and cost over a date range (days, or start_date/end_date inclusive)',
            undefined,
            adminResponses({ 200: jsonResponse(usageTotals, 'The sums') }, [400]),
          ),
          parameters: [...RANGE_PARAMS],
        },
      },
    )
    .get(
      '/usage/breakdown',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const q = parseQuery(breakdownQuery, context.request)
          const range = rangeOf(q)
          await usage.flush()
          const data = await usage.reader.breakdown({ ...range, userPath: confinedPath(actor.admin.scope, undefined) }, q.by, q.interval)
          return Response.json({ start: range.start, end: range.end, by: q.by, interval: q.interval ?? null, data })
        }),
      {
        permission: 'usage.read',
        detail: {
          ...adminDoc(
            'usage',
            'The same sums grouped by model, provider, key, user_path or label (a request counts under each of its labels; interval=day for a time series)',
            undefined,
            adminResponses({ 200: jsonResponse(usageBreakdown, 'The groups') }, [400]),
          ),
          parameters: [
            ...RANGE_PARAMS,
            { name: 'by', in: 'query', schema: { type: 'string' as const, enum: [...USAGE_GROUPS], default: 'model' } },
            { name: 'interval', in: 'query', schema: { type: 'string' as const, enum: ['day'] } },
          ],
        },
      },
    )
    .get('/pricing', (context) => adminAnswer(gateway, context, async () => Response.json({ object: 'list', unit: 'USD per million tokens', data: usage.prices.entries() })), {
      permission: 'prices.read',
      detail: adminDoc('usage', 'The effective price table: bundled defaults and overrides', undefined, adminResponses({ 200: jsonResponse(priceList, 'The prices') })),
    })
    .put(
      '/pricing/*',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const model = decodeURIComponent(context.params['*'])
          const parsed = modelPriceSchema.safeParse(await readJsonBody(context.request))
          if (!parsed.success) throw gatewayErrors.fromZod(parsed.error, { subject: 'body' })
          const before = await overrideOf(model)
          await usage.overrides.set(model, parsed.data)
          await usage.loadPrices(true)
          recordAdminChange(gateway, context, actor, { event_type: 'price.set', subject_id: model, before, after: parsed.data, message: `price override for '${model}'` })
          return Response.json({ model, price: parsed.data, source: 'override' })
        }),
      {
        parse: 'none',
        permission: 'prices.write',
        detail: adminDoc(
          'usage',
          'Override the price of a model (or <provider>/<model>, or a prefix)',
          modelPriceSchema,
          adminResponses({ 200: jsonResponse(z.object({ model: z.string(), price: modelPriceSchema, source: z.literal('override') }), 'The override') }, [400]),
        ),
      },
    )
    .delete(
      '/pricing/*',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const model = decodeURIComponent(context.params['*'])
          const before = await overrideOf(model)
          if (!(await usage.overrides.delete(model)))
            throw new GatewayError({ status: 404, type: 'not_found_error', param: 'model', code: 'price_not_found', message: `No price override for '${model}'.` })
          await usage.loadPrices(true)
          recordAdminChange(gateway, context, actor, { event_type: 'price.deleted', subject_id: model, before, after: null, message: `dropped the price override for '${model}'` })
          return Response.json({ model, deleted: true })
        }),
      {
        parse: 'none',
        permission: 'prices.write',
        detail: adminDoc(
          'usage',
          'Drop a price override',
          undefined,
          adminResponses({ 200: jsonResponse(z.object({ model: z.string(), deleted: z.literal(true) }), 'Dropped') }, [404]),
        ),
      },
    )
}
