/**
 * @module POST /admin/session: dashboard sign-in. Checks the presented credential like the admin guard does
 * (master key, or a managed key with an admin role) and records `dashboard.sign_in` or
 * `dashboard.sign_in_failed`. Mounted before the guard, so failed attempts reach it too; their entries go
 * through the failure limiter so guessing cannot flood the audit store.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { errorResponse } from '../../errors/gateway-error.ts'
import { clientAddressOf } from '../client-address.ts'
import { openApiSchema } from '../openapi-schema.ts'
import { adminPrincipalView, describeAdminPrincipal } from './principal-view.ts'

export function sessionRoutes(gateway: Gateway) {
  return new Elysia({ name: 'gateway/admin/session' }).post(
    '/session',
    function signIn({ request, server }) {
      const clientAddress = clientAddressOf(server, request)
      const result = gateway.adminAuth.authenticate(request.headers, clientAddress)
      const clientIp = clientAddress()
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
      // Filed under the subtree it administers: its own auditors see it.
      const user_path = p.admin?.scope ?? '/'
      gateway.securityEvents.record({ ...base, event_type: 'dashboard.sign_in', principal_id: p.id, auth_method: p.method, auth_key_id: p.keyId, user_path, status_code: 200 })
      return Response.json(describeAdminPrincipal(p))
    },
    {
      parse: 'none',
      detail: {
        summary: 'Dashboard sign-in: validates the master key or a managed key with an admin role; answers its role, scope and permissions',
        tags: ['admin'],
        responses: {
          200: { description: 'The signed-in principal', content: { 'application/json': { schema: openApiSchema(adminPrincipalView, {}) } } },
          401: { description: 'Missing, unknown, revoked or expired credential, the admin API is closed, or the address is throttled (code auth_throttled, with Retry-After)' },
          403: { description: 'A valid managed key without an admin role (code admin_access_denied)' },
        },
      },
    },
  )
}
