/**
 * @module /admin/audit: the list (slim entries, newest first), one entry in full, the thread around an entry,
 * dashboard statistics, and the writer's counters. Parameters are validated in src/audit/query.ts; reading is
 * the audit reader's job (src/stores/types.ts). A principal reads the entries inside its subtree, security events
 * and bodies and headers only when its role may (src/admin/audit-access.ts); an entry it may not read is a 404.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { parseAuditLogQuery, parseAuditStatsQuery, parseConversationQuery, parseLogId } from '../../audit/query.ts'
import { asReadBy, auditAccessOf, mayReadEntry } from '../../admin/audit-access.ts'
import { confinedPath } from '../../admin/scope.ts'
import { GatewayError } from '../../errors/gateway-error.ts'
import { auditSchemas, gatewayErrorDoc } from '../doc-schemas.ts'
import type { DocSchema } from '../openapi-schema.ts'
import { adminAnswer, jsonSchemaOf } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const notFound = (id: string) =>
  new GatewayError({ status: 404, type: 'not_found_error', param: 'log_id', code: 'audit_log_not_found', message: `No audit log entry with id '${id}'.` })

const searchParams = (request: Request) => new URL(request.url).searchParams

type Param = {
  name: string
  type: 'string' | 'integer' | 'boolean'
  description: string
  required?: boolean
  format?: string
  minimum?: number
  maximum?: number
  minLength?: number
}

const DATE_PARAMS: Param[] = [
  { name: 'days', type: 'integer', minimum: 1, maximum: 3650, description: 'Number of calendar days (UTC) up to today; default 30, 1–3650. Ignored when both dates are given.' },
  { name: 'start_date', type: 'string', format: 'date', description: 'First day, YYYY-MM-DD (UTC, inclusive).' },
  { name: 'end_date', type: 'string', format: 'date', description: 'Last day, YYYY-MM-DD (UTC, inclusive).' },
]

const LIST_PARAMS: Param[] = [
  ...DATE_PARAMS,
  { name: 'requested_model', type: 'string', description: 'Exact requested model selector (alias: model).' },
  { name: 'model', type: 'string', description: 'Alias of requested_model.' },
  { name: 'provider', type: 'string', description: 'Provider name or provider type (exact).' },
  { name: 'method', type: 'string', description: 'HTTP method (case-insensitive).' },
  { name: 'path', type: 'string', description: 'Exact request path, e.g. /v1/chat/completions.' },
  { name: 'user_path', type: 'string', description: 'User path subtree: /acme matches /acme and /acme/team-a.' },
  { name: 'session_id', type: 'string', description: 'Exact session id; without date parameters the whole session, whatever its age.' },
  { name: 'error_type', type: 'string', description: 'provider_error, rate_limit_error, invalid_request_error, authentication_error or not_found_error.' },
  { name: 'status_code', type: 'integer', minimum: 100, maximum: 599, description: 'HTTP status code (100–599).' },
  { name: 'stream', type: 'boolean', description: 'true or false.' },
  { name: 'label', type: 'string', description: 'Entries carrying this request label (exact), e.g. checkout or team:payments (docs/labels.md).' },
  { name: 'batch_id', type: 'string', description: 'The lines of this batch the gateway ran (docs/batches.md); not together with label.' },
  {
    name: 'search',
    type: 'string',
    description:
      'A UUID matches id, request_id or session_id exactly; other text matches words (in order, word prefixes) in request_id, requested_model, provider, method, path, session_id, error_type and error_message.',
  },
  { name: 'limit', type: 'integer', minimum: 1, maximum: 100, description: 'Page size; default 25, 1–100.' },
  { name: 'offset', type: 'integer', minimum: 0, maximum: 100_000_000, description: 'Entries to skip; default 0.' },
  {
    name: 'exact_total',
    type: 'boolean',
    description:
      'true: count every match for total (total_relation always eq); slow when many match (at 1M entries on PostgreSQL 0.1-0.3 s for 200k-500k filtered entries, 1-3 s for a common search word). Default false: counting stops past 10,000, and total is then 10,000 with total_relation gte.',
  },
]

const LOG_ID: Param = { name: 'log_id', type: 'string', required: true, minLength: 1, description: 'The audit log entry id.' }

const json = (schema: DocSchema, description: string) => ({ description, content: { 'application/json': { schema: jsonSchemaOf(schema) } } })

// Empty values count as not given (src/audit/query.ts), as on every /admin route.
const bounds = (p: Param) => Object.fromEntries(Object.entries({ minimum: p.minimum, maximum: p.maximum, minLength: p.minLength }).filter(([, v]) => v !== undefined))

function doc(summary: string, params: Param[], ok: DocSchema, errorCodes: number[]) {
  return {
    summary,
    tags: ['admin', 'audit'],
    parameters: params.map((p) => ({
      name: p.name,
      in: 'query',
      required: p.required ?? false,
      description: p.description,
      schema: { type: p.type, ...(p.format ? { format: p.format } : {}), ...bounds(p) },
    })),
    responses: {
      200: json(ok, 'OK'),
      ...Object.fromEntries(errorCodes.map((c) => [String(c), json(gatewayErrorDoc, 'GatewayError')])),
    },
  }
}

export function auditRoutes(gateway: Gateway) {
  const audit = gateway.auditLog
  return new Elysia({ name: 'gateway/admin/audit' })
    .use(adminPermission)
    .get(
      '/audit/log',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const access = auditAccessOf(actor.admin)
          const query = parseAuditLogQuery(searchParams(context.request))
          const userPath = confinedPath(access.scope, query.userPath)
          const page = await audit.reader.list({ ...query, userPath, requestsOnly: !access.securityEvents || undefined })
          return Response.json({ ...page, entries: page.entries.map((e) => asReadBy(access, e)) })
        }),
      {
        permission: 'audit.read',
        detail: doc(
          'Audit log entries, newest first, without bodies (bodies_omitted); filters and paging. Confined to the caller’s subtree; security events for auditors and admins; headers for them only',
          LIST_PARAMS,
          () => auditSchemas().auditLogPageSchema,
          [400, 401, 403, 500],
        ),
      },
    )
    .get(
      '/audit/detail',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const access = auditAccessOf(actor.admin)
          const id = parseLogId(searchParams(context.request))
          const entry = await audit.reader.get(id)
          if (!entry || !mayReadEntry(access, entry)) throw notFound(id)
          return Response.json(asReadBy(access, entry))
        }),
      {
        permission: 'audit.read',
        detail: doc(
          'One audit log entry in full (bodies, attempts, revisions) with its usage summary; bodies and headers for auditors and admins only',
          [LOG_ID],
          () => auditSchemas().auditLogEntrySchema,
          [400, 401, 403, 404, 500],
        ),
      },
    )
    .get(
      '/audit/conversation',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const access = auditAccessOf(actor.admin)
          const { logId, limit } = parseConversationQuery(searchParams(context.request))
          const thread = await audit.conversation(logId, limit, { userPath: access.scope ?? undefined, mayRead: (entry) => mayReadEntry(access, entry) })
          if (!thread) throw notFound(logId)
          return Response.json({ ...thread, entries: thread.entries.map((e) => asReadBy(access, e)) })
        }),
      {
        permission: 'audit.read',
        detail: doc(
          'The thread around an entry, oldest first: its session, else its Responses previous_response_id chain; only entries of the same principal, inside the caller’s subtree',
          [LOG_ID, { name: 'limit', type: 'integer', minimum: 1, maximum: 200, description: 'Entries at most; default 40, 1–200.' }],
          () => auditSchemas().auditConversationSchema,
          [400, 401, 403, 404, 500],
        ),
      },
    )
    .get(
      '/audit/stats',
      (context) =>
        adminAnswer(gateway, context, async (actor) => {
          const query = parseAuditStatsQuery(searchParams(context.request))
          const userPath = confinedPath(actor.admin.scope, undefined)
          return Response.json(await audit.stats(userPath === undefined ? query : { ...query, userPath }))
        }),
      {
        permission: 'audit.read',
        detail: doc(
          'Requests, status classes and latency per hour (spans under three days) or day, in the caller’s subtree',
          DATE_PARAMS,
          () => auditSchemas().auditStatsSchema,
          [400, 401, 403, 500],
        ),
      },
    )
    .get('/audit/writer-stats', (context) => adminAnswer(gateway, context, async () => Response.json(audit.writer.stats())), {
      permission: 'operations.read',
      detail: doc('Audit writer counters: queue depth, written, spilled, replayed, failed', [], () => auditSchemas().auditWriterStatsSchema, [401, 403]),
    })
}
