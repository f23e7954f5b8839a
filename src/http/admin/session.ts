/**
 * @module POST /admin/session: dashboard sign-in. Checks the presented credential like the admin guard does
 * (master key, or a managed key with dashboard access) and records `dashboard.sign_in` or
 * `dashboard.sign_in_failed`. Mounted before the guard, so failed attempts reach it too; their entries go
 * through the failure limiter so guessing cannot flood the audit store.
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { errorResponse } from '../../errors/gateway-error.ts'
import { openApiSchema } from '../openapi-schema.ts'

const sessionView = z.object({
  principal_id: z.string(),
  auth_method: z.enum(['master_key', 'managed_key', 'none']),
  key_id: z.string().nullable(),
  user_path: z.string().nullable(),
})

export function sessionRoutes(gateway: Gateway) {
  return new Elysia({ name: 'gateway/admin/session' }).post(
    '/session',
    function signIn({ request, server }) {
      const result = gateway.adminAuth.authenticate(request.headers)
      const clientIp = server?.requestIP(request)?.address ?? ''
      const base = { method: request.method, path: new URL(request.url).pathname, client_ip: clientIp, user_agent: request.headers.get('user-agent') ?? '' }
      if (!result.ok) {
        if (gateway.authFailures.shouldAudit(clientIp, `dashboard:${result.error.code ?? result.error.status}`)) {
          gateway.securityEvents.record({
            ...base,
            event_type: 'dashboard.sign_in_failed',
            principal_id: 'anonymous',
            auth_method: 'none',
            status_code: result.error.status,
            message: result.reason,
          })
        }
        return errorResponse(result.error)
      }
      const p = result.principal
      gateway.securityEvents.record({ ...base, event_type: 'dashboard.sign_in', principal_id: p.id, auth_method: p.method, auth_key_id: p.keyId, status_code: 200 })
      return Response.json({ principal_id: p.id, auth_method: p.method, key_id: p.keyId ?? null, user_path: p.userPath ?? null } satisfies z.infer<typeof sessionView>)
    },
    {
      parse: 'none',
      detail: {
        summary: 'Dashboard sign-in: validates the master key or a dashboard-enabled managed key',
        tags: ['admin'],
        responses: {
          200: { description: 'The signed-in principal', content: { 'application/json': { schema: openApiSchema(sessionView, {}) } } },
          401: { description: 'Missing, unknown, revoked or expired credential, or the admin API is closed' },
          403: { description: 'A valid managed key without dashboard access (code admin_access_denied)' },
        },
      },
    },
  )
}
