/**
 * @module Small pieces every /admin area shares: reading a JSON body, turning thrown errors into GatewayError
 * responses, and OpenAPI documentation helpers.
 */
import type { Gateway } from '../../app.ts'
import { errorResponse, GatewayError, gatewayErrors, toGatewayError } from '../../errors/gateway-error.ts'
import type { AdminGrant } from '../../admin/roles.ts'
import type { Principal } from '../../pipeline/context.ts'
import { readBody } from '../body-reader.ts'
import { unsupportedJsonBody } from '../json-content-type.ts'
import { gatewayErrorDoc } from '../doc-schemas.ts'
import { type DocSchema, openApiSchema } from '../openapi-schema.ts'

/**
 * Admin bodies are small JSON documents (a key, a workflow, a price). Bun's own body limit is lifted so that /v1
 * can answer every oversize body itself (docs/security.md), so this is the admin API's bound.
 */
export const ADMIN_MAX_BODY_BYTES = 1024 * 1024
const ADMIN_BODY_DEADLINE_MS = 30_000

/** Reads an admin JSON body within ADMIN_MAX_BODY_BYTES and a deadline; throws the GatewayError (415, 413, 408, 400) past them. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const notJson = unsupportedJsonBody(request)
  if (notJson) throw notJson
  const read = await readBody(request, { maxBytes: ADMIN_MAX_BODY_BYTES, deadlineMs: ADMIN_BODY_DEADLINE_MS })
  if (read.kind === 'too_large') throw gatewayErrors.bodyTooLarge(ADMIN_MAX_BODY_BYTES)
  if (read.kind === 'timeout') throw gatewayErrors.bodyTimeout(ADMIN_BODY_DEADLINE_MS / 1000)
  if (read.kind === 'aborted') throw gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
  const text = read.text
  if (!text.trim()) return {}
  try {
    return JSON.parse(text)
  } catch (error) {
    throw gatewayErrors.invalidJson((error as Error).message)
  }
}

/** A principal the admin guard let in: it has an admin grant. */
export type AdminActor = Principal & { admin: AdminGrant }

/** Runs an admin handler for the principal the admin guard resolved; errors become GatewayError responses. */
export async function adminAnswer(gateway: Gateway, context: unknown, run: (actor: AdminActor) => Promise<Response>): Promise<Response> {
  try {
    const actor = (context as { adminPrincipal?: Principal }).adminPrincipal
    if (!actor?.admin) throw gatewayErrors.internal('Admin routes are mounted without the admin guard.')
    return await run(actor as AdminActor)
  } catch (error) {
    if (!(error instanceof GatewayError)) gateway.log.error({ err: error }, 'admin handler failed')
    const answer = toGatewayError(error)
    // A body refused unread (too large, too slow, not JSON): its rest is never read, so the connection cannot be reused.
    return errorResponse(answer, answer.status === 413 || answer.status === 408 || answer.status === 415 ? { connection: 'close' } : {})
  }
}

export const jsonSchemaOf = (schema: DocSchema) => openApiSchema(schema)

/**
 * Query parameters as one record for a zod schema. The rule on every /admin route: a value that is empty (or only
 * spaces) counts as not given, as dashboards send empty filters (src/audit/query.ts reads its parameters the same way).
 */
export function queryRecord(request: Request): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of new URL(request.url).searchParams) if (value.trim() !== '') out[name] = value.trim()
  return out
}

export type ResponseDoc = { description: string; content: { 'application/json': { schema: Record<string, unknown> } } }
export const jsonResponse = (schema: DocSchema, description: string): ResponseDoc => ({ description, content: { 'application/json': { schema: jsonSchemaOf(schema) } } })

/** Every admin route may answer 401 (no or bad credential), 403 (not an admin) and 500, all as GatewayError. */
export function adminResponses(ok: Record<number, ResponseDoc>, errorCodes: number[] = []): Record<string, ResponseDoc> {
  const codes = [...new Set([...errorCodes, 401, 403, 500])].sort()
  return { ...Object.fromEntries(Object.entries(ok)), ...Object.fromEntries(codes.map((c) => [String(c), jsonResponse(gatewayErrorDoc, 'GatewayError')])) }
}

export function adminDoc(tag: string, summary: string, requestBody?: DocSchema, responses?: Record<string, ResponseDoc>) {
  // A body not sent as application/json is a 415 (readJsonBody).
  const withBody = requestBody && responses ? { ...responses, 415: jsonResponse(gatewayErrorDoc, 'GatewayError: the body is not sent as application/json') } : responses
  return {
    summary,
    tags: ['admin', tag],
    ...(withBody ? { responses: withBody } : {}),
    ...(requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(requestBody) } } } } : {}),
  }
}
