/**
 * @module /admin/keys: create, list, read, change and revoke managed API keys. The secret is returned once, in
 * the creation response; afterwards only its redacted form exists. Mounted behind the admin guard (routes.ts),
 * which resolves `adminPrincipal`. Every change is written as a security lifecycle entry.
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { keyStatus, type NewApiKey } from '../../keys/key-directory.ts'
import { allowedModelProblem } from '../../keys/model-access.ts'
import { normalizeUserPath } from '../../keys/user-path.ts'
import type { Principal } from '../../pipeline/context.ts'
import type { ApiKeyChanges, ApiKeyRecord } from '../../stores/types.ts'
import { adminAnswer, jsonSchemaOf, queryRecord, readJsonBody } from './admin-http.ts'
import { apiKeyView, createdKeyView, keyPageView, type ApiKeyView } from '../../keys/api-key-views.ts'

const userPathField = z
  .string()
  .describe("User path the key is bound to, e.g. '/acme/team-a'. Requests may narrow it, never leave it.")
  .transform((value, ctx) => {
    const result = normalizeUserPath(value)
    if (result.ok) return result.path
    ctx.addIssue({ code: 'custom', message: result.reason })
    return z.NEVER
  })

const allowedModelsField = z
  .array(
    z
      .string()
      .min(1)
      .superRefine((entry, ctx) => {
        const problem = allowedModelProblem(entry)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      }),
  )
  .min(1, 'list at least one model, or send null for every model')
  .max(500)
  .describe("Selectors ('openai/gpt-4o'), virtual model names ('fast') or prefix patterns ('openai/*'); null means every model.")

const expiresAtField = z.iso
  .datetime({ offset: true, message: 'expected an RFC 3339 timestamp with a time zone, e.g. 2030-01-31T12:00:00Z' })
  .describe('RFC 3339 timestamp after which the key is refused; null means no expiry.')

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  user_path: userPathField.nullable().default(null),
  allowed_models: allowedModelsField.nullable().default(null),
  dashboard_enabled: z.boolean().default(false).describe('May sign in to the dashboard and use the admin API.'),
  expires_at: expiresAtField.nullable().default(null),
})

export const updateKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  user_path: userPathField.nullable().optional(),
  allowed_models: allowedModelsField.nullable().optional(),
  dashboard_enabled: z.boolean().optional(),
  expires_at: expiresAtField.nullable().optional(),
})

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  offset: z.coerce.number().int().min(0).default(0),
  search: z.string().max(200).optional().describe('Case-insensitive substring of name or description.'),
  include_revoked: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  user_path: userPathField.optional().describe('Keys bound to this path or below it.'),
})

const gatewayErrorView = z.object({
  error: z.object({ type: z.string(), message: z.string(), code: z.string().nullable(), param: z.string().nullable(), provider: z.string(), status_code: z.number() }),
})

function toView(r: ApiKeyRecord, now: number): ApiKeyView {
  return {
    id: r.id,
    object: 'api_key',
    name: r.name,
    description: r.description,
    redacted_key: r.redactedKey,
    user_path: r.userPath,
    allowed_models: r.allowedModels === null ? null : [...r.allowedModels],
    dashboard_enabled: r.dashboardEnabled,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    revoked_at: r.revokedAt,
    status: keyStatus(r, now),
    created_by: r.createdBy,
  }
}

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema: jsonSchemaOf(schema) } } })
type ResponseDoc = ReturnType<typeof json>
const errors = (...codes: number[]): Record<string, ResponseDoc> => Object.fromEntries(codes.map((c) => [String(c), json(gatewayErrorView, 'GatewayError')]))
const detail = (summary: string, responses: Record<string, ResponseDoc>, requestBody?: z.ZodType) => ({
  summary,
  tags: ['admin', 'keys'],
  responses,
  ...(requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(requestBody) } } } } : {}),
})

/** The first problem as a 400 naming the field (`param`). */
function invalid(error: z.ZodError): GatewayError {
  return gatewayErrors.fromZod(error, { subject: 'body', topLevel: true })
}

/** Reads a JSON body and validates it: a 400 naming the field when it does not fit. */
async function bodyOf<Schema extends z.ZodType>(schema: Schema, request: Request): Promise<z.infer<Schema>> {
  const parsed = schema.safeParse(await readJsonBody(request))
  if (!parsed.success) throw invalid(parsed.error)
  return parsed.data
}

/** RFC 3339 in, UTC `toISOString` out; an expiry must lie in the future. */
function futureExpiry(value: string | null | undefined, now: number): string | null | undefined {
  if (value === null || value === undefined) return value
  const at = Date.parse(value)
  if (Number.isNaN(at)) throw gatewayErrors.invalidRequest('expires_at: not a valid date.', 'expires_at')
  if (at <= now) throw gatewayErrors.invalidRequest('expires_at: the expiry must lie in the future.', 'expires_at')
  return new Date(at).toISOString()
}

/** A create or change body's fields under the key directory's names (a change's absent fields stay absent). */
function keyFields(body: z.infer<typeof createKeyBody>, now: number): Omit<NewApiKey, 'createdBy'>
function keyFields(body: z.infer<typeof updateKeyBody>, now: number): ApiKeyChanges
function keyFields(body: z.infer<typeof updateKeyBody>, now: number): ApiKeyChanges {
  return {
    name: body.name,
    description: body.description,
    userPath: body.user_path,
    allowedModels: body.allowed_models,
    dashboardEnabled: body.dashboard_enabled,
    expiresAt: futureExpiry(body.expires_at, now),
  }
}

const keyNotFound = (id: string) => new GatewayError({ status: 404, type: 'not_found_error', message: `No API key with id '${id}'.`, param: 'id', code: 'key_not_found' })
const keyRevoked = (id: string) =>
  new GatewayError({ status: 409, type: 'invalid_request_error', message: `API key '${id}' is revoked; a revoked key cannot be changed.`, param: 'id', code: 'key_revoked' })

interface RouteContext {
  request: Request
  server: { requestIP(r: Request): { address: string } | null } | null
}

export function keyRoutes(gateway: Gateway) {
  const now = () => gateway.keys.now()

  const answer = (context: RouteContext, run: (actor: Principal) => Promise<Response>) => adminAnswer(gateway, context, run)

  function audit(context: RouteContext, actor: Principal, eventType: string, subject: ApiKeyRecord, status: number, message: string) {
    gateway.securityEvents.record({
      event_type: eventType,
      principal_id: actor.id,
      auth_method: actor.method,
      auth_key_id: actor.keyId,
      subject_id: subject.id,
      method: context.request.method,
      path: new URL(context.request.url).pathname,
      status_code: status,
      client_ip: context.server?.requestIP(context.request)?.address ?? '',
      user_agent: context.request.headers.get('user-agent') ?? '',
      message,
    })
  }

  return new Elysia({ name: 'gateway/admin/keys' })
    .post(
      '/keys',
      (context) =>
        answer(context, async (actor) => {
          const body = await bodyOf(createKeyBody, context.request)
          const { record, secret } = await gateway.keys.create({ ...keyFields(body, now()), createdBy: actor.id })
          audit(context, actor, 'key.created', record, 201, `created API key '${record.name}' (${record.redactedKey})`)
          return Response.json({ ...toView(record, now()), key: secret }, { status: 201, headers: { 'cache-control': 'no-store' } })
        }),
      {
        parse: 'none',
        detail: detail(
          'Create a managed API key; the secret is in `key`, shown only here',
          { 201: json(createdKeyView, 'The key, with its secret'), ...errors(400, 401, 403) },
          createKeyBody,
        ),
      },
    )
    .get(
      '/keys',
      (context) =>
        answer(context, async () => {
          const parsed = listQuery.safeParse(queryRecord(context.request))
          if (!parsed.success) throw invalid(parsed.error)
          const q = parsed.data
          const page = await gateway.keys.list({ limit: q.limit, offset: q.offset, search: q.search || undefined, includeRevoked: q.include_revoked, userPath: q.user_path })
          const at = now()
          return Response.json({ keys: page.keys.map((k) => toView(k, at)), limit: q.limit, offset: q.offset, total: page.total })
        }),
      {
        detail: {
          ...detail('List managed API keys (never their secrets)', { 200: json(keyPageView, 'A page of keys, newest first'), ...errors(400, 401, 403) }),
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', default: 25, minimum: 1, maximum: 100 } },
            { name: 'offset', in: 'query', schema: { type: 'integer', default: 0, minimum: 0 } },
            { name: 'search', in: 'query', description: 'Substring of name or description', schema: { type: 'string' } },
            { name: 'include_revoked', in: 'query', schema: { type: 'boolean', default: false } },
            { name: 'user_path', in: 'query', description: 'Keys bound to this path or below it', schema: { type: 'string' } },
          ],
        },
      },
    )
    .get(
      '/keys/:id',
      (context) =>
        answer(context, async () => {
          const record = await gateway.keys.get(context.params.id)
          if (!record) throw keyNotFound(context.params.id)
          return Response.json(toView(record, now()))
        }),
      { detail: detail('One managed API key', { 200: json(apiKeyView, 'The key'), ...errors(401, 403, 404) }) },
    )
    .patch(
      '/keys/:id',
      (context) =>
        answer(context, async (actor) => {
          const body = await bodyOf(updateKeyBody, context.request)
          const changes = keyFields(body, now())
          const changed = Object.entries(body)
            .filter(([, v]) => v !== undefined)
            .map(([k]) => k)
          if (changed.length === 0) throw gatewayErrors.invalidRequest('Nothing to change: send at least one field.')
          const result = await gateway.keys.update(context.params.id, changes)
          if (result.kind === 'not_found') throw keyNotFound(context.params.id)
          if (result.kind === 'revoked') throw keyRevoked(context.params.id)
          audit(context, actor, 'key.updated', result.record, 200, `changed ${changed.join(', ')}`)
          return Response.json(toView(result.record, now()))
        }),
      { parse: 'none', detail: detail('Change a managed API key', { 200: json(apiKeyView, 'The changed key'), ...errors(400, 401, 403, 404, 409) }, updateKeyBody) },
    )
    .post(
      '/keys/:id/revoke',
      (context) =>
        answer(context, async (actor) => {
          const result = await gateway.keys.revoke(context.params.id)
          if (!result) throw keyNotFound(context.params.id)
          if (result.changed) audit(context, actor, 'key.revoked', result.record, 200, `revoked API key '${result.record.name}' (${result.record.redactedKey})`)
          return Response.json(toView(result.record, now()))
        }),
      {
        parse: 'none',
        detail: detail('Revoke a managed API key for good; the next request with it gets 401', { 200: json(apiKeyView, 'The revoked key'), ...errors(401, 403, 404) }),
      },
    )
}
