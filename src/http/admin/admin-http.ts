/**
 * @module Small pieces every /admin area shares: reading a JSON body, turning thrown errors into GatewayError
 * responses, and OpenAPI documentation helpers.
 */
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { errorResponse, GatewayError, gatewayErrors, toGatewayError } from '../../errors/gateway-error.ts'
import type { Principal } from '../../pipeline/context.ts'

export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text()
  if (!text.trim()) return {}
  try {
    return JSON.parse(text)
  } catch (error) {
    throw gatewayErrors.invalidJson((error as Error).message)
  }
}

/** Runs an admin handler for the principal the admin guard resolved; errors become GatewayError responses. */
export async function adminAnswer(gateway: Gateway, context: unknown, run: (actor: Principal) => Promise<Response>): Promise<Response> {
  try {
    const actor = (context as { adminPrincipal?: Principal }).adminPrincipal
    if (!actor) throw gatewayErrors.internal('Admin routes are mounted without the admin guard.')
    return await run(actor)
  } catch (error) {
    if (!(error instanceof GatewayError)) gateway.log.error({ err: error }, 'admin handler failed')
    return errorResponse(toGatewayError(error))
  }
}

export const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>

export function adminDoc(tag: string, summary: string, requestBody?: z.ZodType) {
  return {
    summary,
    tags: ['admin', tag],
    ...(requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(requestBody) } } } } : {}),
  }
}
