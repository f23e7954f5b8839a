/**
 * @module /admin/keys: create, list, read, change and revoke managed API keys. The secret is returned once, in
 * the creation response; afterwards only its redacted form exists. Mounted behind the admin guard (routes.ts),
 * which resolves `adminPrincipal`; each route names its permission, and every read and change is confined to the
 * principal's user-path subtree. No principal gives a key more than it has (src/admin/key-grants.ts), a key never
 * changes its own power, and revoking a key revokes the keys it created. Every change is a security event with
 * the key before and after.
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import { exceedingFields, holderOf, holderOfKey, type KeyPower, POWER_FIELDS, type PowerField, widening } from '../../admin/key-grants.ts'
import { ADMIN_ROLES, type AdminRole, grantableRoles } from '../../admin/roles.ts'
import { commonUserPath, confinedPath, inAdminScope } from '../../admin/scope.ts'
import type { Gateway } from '../../app.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { apiKeyView, createdKeyView, keyPageView, toKeyView } from '../../keys/api-key-views.ts'
import { allowedModelProblem } from '../../keys/model-access.ts'
import { normalizeUserPath } from '../../keys/user-path.ts'
import type { ApiKeyChanges, ApiKeyRecord } from '../../stores/types.ts'
import { recordAdminChange, type RouteContext } from './admin-events.ts'
import { type AdminActor, adminAnswer, jsonSchemaOf, queryRecord, readJsonBody } from './admin-http.ts'
import { adminPermission } from './permission.ts'

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

const roleField = z.enum(ADMIN_ROLES).nullable().describe('Admin role (viewer, auditor, key_manager, admin), confined to user_path; null: /v1 only.')
const dashboardField = z.boolean().describe("Compatibility: true without `role` means role 'admin', false means no role.")

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  user_path: userPathField.nullable().default(null),
  allowed_models: allowedModelsField.nullable().default(null),
  role: roleField.optional(),
  dashboard_enabled: dashboardField.optional(),
  expires_at: expiresAtField.nullable().default(null),
})

export const updateKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  user_path: userPathField.nullable().optional(),
  allowed_models: allowedModelsField.nullable().optional(),
  role: roleField.optional(),
  dashboard_enabled: dashboardField.optional(),
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

/** `role` as sent, else what `dashboard_enabled` meant before roles (true: admin); undefined when neither is sent. */
function roleOf(body: { role?: AdminRole | null; dashboard_enabled?: boolean }): AdminRole | null | undefined {
  if (body.role === undefined) return body.dashboard_enabled === undefined ? undefined : body.dashboard_enabled ? 'admin' : null
  if (body.dashboard_enabled !== undefined && body.dashboard_enabled !== (body.role !== null))
    throw gatewayErrors.invalidRequest(`dashboard_enabled: ${body.dashboard_enabled} contradicts role ${body.role}; send role alone.`, 'dashboard_enabled')
  return body.role
}

/** A change body's fields under the store's names (absent fields stay absent). */
function keyChanges(body: z.infer<typeof updateKeyBody>, now: number): ApiKeyChanges {
  const changes: ApiKeyChanges = {
    name: body.name,
    description: body.description,
    userPath: body.user_path,
    allowedModels: body.allowed_models,
    role: roleOf(body),
    expiresAt: futureExpiry(body.expires_at, now),
  }
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as ApiKeyChanges
}

const CHANGE_FIELDS: Record<keyof ApiKeyChanges, PowerField | undefined> = {
  name: undefined,
  description: undefined,
  userPath: 'user_path',
  allowedModels: 'allowed_models',
  role: 'role',
  expiresAt: 'expires_at',
}

/** The power fields a change sets. */
const powerFieldsOf = (changes: ApiKeyChanges): PowerField[] =>
  (Object.keys(changes) as (keyof ApiKeyChanges)[]).map((k) => CHANGE_FIELDS[k]).filter((f): f is PowerField => f !== undefined)

const keyNotFound = (id: string) => new GatewayError({ status: 404, type: 'not_found_error', message: `No API key with id '${id}'.`, param: 'id', code: 'key_not_found' })
const keyRevoked = (id: string) =>
  new GatewayError({ status: 409, type: 'invalid_request_error', message: `API key '${id}' is revoked; a revoked key cannot be changed.`, param: 'id', code: 'key_revoked' })
const userPathRequired = () =>
  gatewayErrors.invalidRequest(
    'user_path: this gateway requires every API key without an admin role to be bound to a user path (GATEWAY_REQUIRE_KEY_USER_PATH).',
    'user_path',
    'user_path_required',
  )
const roleNotManaged = (record: ApiKeyRecord, actor: AdminActor) =>
  new GatewayError({
    status: 403,
    type: 'authentication_error',
    code: 'admin_permission_denied',
    param: 'id',
    message: `API key '${record.id}' holds the role ${record.role}; the role ${actor.admin.role} may change or revoke only keys with ${grantableRoles(actor.admin.role).join(', ') || 'no role'}.`,
  })
const ownPower = (fields: PowerField[]) =>
  new GatewayError({
    status: 403,
    type: 'authentication_error',
    code: 'own_key_power',
    param: fields[0]!,
    message: `${fields[0]}: a key cannot change its own ${fields.join(', ')}; ask whoever manages it.`,
  })

export function keyRoutes(gateway: Gateway) {
  const now = () => gateway.keys.now()
  const view = (record: ApiKeyRecord) => toKeyView(record, now(), gateway.keys.creatorOf(record))
  const answer = (context: RouteContext, run: (actor: AdminActor) => Promise<Response>) => adminAnswer(gateway, context, run)

  /** The key when it exists inside the actor's subtree; a key outside it is answered as unknown. */
  async function visibleKey(actor: AdminActor, id: string): Promise<ApiKeyRecord> {
    const record = await gateway.keys.get(id)
    if (!record || !inAdminScope(actor.admin.scope, record.userPath)) throw keyNotFound(id)
    return record
  }

  /** A key with a role is changed or revoked only by a principal that may grant that role; a key without one by any `keys.write`. */
  function checkManaged(actor: AdminActor, record: ApiKeyRecord): void {
    if (record.role !== null && !grantableRoles(actor.admin.role).includes(record.role)) throw roleNotManaged(record, actor)
  }

  /** Its children that exceed it as it is now: flagged in their views (`exceeds_creator`), listed in the event. */
  function exceedingChildren(record: ApiKeyRecord): string[] {
    const holder = holderOfKey(record)
    return gateway.keys
      .childrenOf(record.id)
      .filter((child) => exceedingFields(child, holder).length > 0)
      .map((child) => child.id)
  }

  /**
   * With GATEWAY_REQUIRE_KEY_USER_PATH an unbound key without a role could never call /v1 or /mcp: refused when it
   * is made, rather than answered 403 on every call later. A key with a role is for the admin API and may stay unbound.
   */
  function requireUserPathWhereConfigured(key: { userPath?: string | null; role?: string | null }): void {
    if (gateway.config.auth.require_key_user_path && !key.userPath && !key.role) throw userPathRequired()
  }

  return new Elysia({ name: 'gateway/admin/keys' })
    .use(adminPermission)
    .post(
      '/keys',
      (context) =>
        answer(context, async (actor) => {
          const body = await bodyOf(createKeyBody, context.request)
          const power: KeyPower = {
            role: roleOf(body) ?? null,
            userPath: body.user_path,
            allowedModels: body.allowed_models,
            expiresAt: futureExpiry(body.expires_at, now()) ?? null,
          }
          const holder = holderOf(actor, actor.admin)
          const [exceeding] = exceedingFields(power, holder)
          if (exceeding) throw widening(exceeding, holder)
          requireUserPathWhereConfigured(power)
          const { record, secret } = await gateway.keys.create({ name: body.name, description: body.description, ...power, createdBy: actor.id })
          const after = view(record)
          recordAdminChange(gateway, context, actor, {
            event_type: 'key.created',
            subject_id: record.id,
            user_path: record.userPath ?? '/',
            before: null,
            after,
            status_code: 201,
            message: `created API key '${record.name}' (${record.redactedKey})`,
          })
          return Response.json({ ...after, key: secret }, { status: 201, headers: { 'cache-control': 'no-store' } })
        }),
      {
        parse: 'none',
        permission: 'keys.write',
        detail: detail(
          'Create a managed API key; the secret is in `key`, shown only here. It gets no more than the caller has: its user path inside the caller’s subtree, its models within the caller’s, its role one the caller may grant, its expiry no later than the caller’s',
          { 201: json(createdKeyView, 'The key, with its secret'), ...errors(400, 401, 403) },
          createKeyBody,
        ),
      },
    )
    .get(
      '/keys',
      (context) =>
        answer(context, async (actor) => {
          const parsed = listQuery.safeParse(queryRecord(context.request))
          if (!parsed.success) throw invalid(parsed.error)
          const q = parsed.data
          const userPath = confinedPath(actor.admin.scope, q.user_path)
          const page = await gateway.keys.list({ limit: q.limit, offset: q.offset, search: q.search || undefined, includeRevoked: q.include_revoked, userPath })
          return Response.json({ keys: page.keys.map(view), limit: q.limit, offset: q.offset, total: page.total })
        }),
      {
        permission: 'keys.read',
        detail: {
          ...detail('List managed API keys (never their secrets); a scoped principal sees the keys bound inside its subtree', {
            200: json(keyPageView, 'A page of keys, newest first'),
            ...errors(400, 401, 403),
          }),
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
    .get('/keys/:id', (context) => answer(context, async (actor) => Response.json(view(await visibleKey(actor, context.params.id)))), {
      permission: 'keys.read',
      detail: detail('One managed API key (404 when outside the caller’s subtree)', { 200: json(apiKeyView, 'The key'), ...errors(401, 403, 404) }),
    })
    .patch(
      '/keys/:id',
      (context) =>
        answer(context, async (actor) => {
          const body = await bodyOf(updateKeyBody, context.request)
          const changes = keyChanges(body, now())
          if (Object.keys(changes).length === 0) throw gatewayErrors.invalidRequest('Nothing to change: send at least one field.')
          const id = context.params.id
          const current = await visibleKey(actor, id)
          if (current.revokedAt !== null) throw keyRevoked(id)
          checkManaged(actor, current)
          const powerFields = powerFieldsOf(changes)
          if (actor.keyId === id && powerFields.length > 0) throw ownPower(powerFields)
          const holder = holderOf(actor, actor.admin)
          // A role lets the key mint keys up to its own power, so granting one checks the whole key, not just the role.
          const checked = changes.role ? POWER_FIELDS : powerFields
          const [exceeding] = exceedingFields({ ...current, ...changes }, holder, checked)
          if (exceeding) throw widening(exceeding, holder)
          requireUserPathWhereConfigured({ ...current, ...changes })
          const result = await gateway.keys.update(id, changes)
          if (result.kind === 'not_found') throw keyNotFound(id)
          if (result.kind === 'revoked') throw keyRevoked(id)
          const flagged = powerFields.length > 0 ? exceedingChildren(result.record) : []
          const after = view(result.record)
          recordAdminChange(gateway, context, actor, {
            event_type: 'key.updated',
            subject_id: id,
            user_path: commonUserPath(current.userPath, result.record.userPath),
            before: view(current),
            after,
            message: `changed ${Object.keys(body).join(', ')}${flagged.length ? `; keys it created that now exceed it: ${flagged.join(', ')}` : ''}`,
          })
          return Response.json(after)
        }),
      {
        parse: 'none',
        permission: 'keys.write',
        detail: detail(
          'Change a managed API key inside the caller’s subtree, under the same rules as creating one; a key cannot change its own role, user path, models or expiry',
          { 200: json(apiKeyView, 'The changed key'), ...errors(400, 401, 403, 404, 409) },
          updateKeyBody,
        ),
      },
    )
    .post(
      '/keys/:id/revoke',
      (context) =>
        answer(context, async (actor) => {
          const current = await visibleKey(actor, context.params.id)
          // Revoking one's own key only takes power away.
          if (actor.keyId !== current.id) checkManaged(actor, current)
          const result = await gateway.keys.revoke(current.id)
          if (!result) throw keyNotFound(current.id)
          const revoked = (record: ApiKeyRecord, message: string) =>
            recordAdminChange(gateway, context, actor, {
              event_type: 'key.revoked',
              subject_id: record.id,
              user_path: record.userPath ?? '/',
              before: view({ ...record, revokedAt: null }),
              after: view(record),
              message,
            })
          if (result.changed) revoked(result.record, `revoked API key '${result.record.name}' (${result.record.redactedKey})`)
          for (const child of result.cascaded)
            revoked(child, `revoked API key '${child.name}' (${child.redactedKey}) with the key that created it, directly or not (${current.id})`)
          return Response.json(view(result.record))
        }),
      {
        parse: 'none',
        permission: 'keys.write',
        detail: detail('Revoke a managed API key for good, and every key it created (transitively); the next request with any of them gets 401', {
          200: json(apiKeyView, 'The revoked key'),
          ...errors(401, 403, 404),
        }),
      },
    )
}
