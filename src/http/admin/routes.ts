/**
 * @module Mounts every /admin area behind the admin guard. Each area lives in its own file in this folder and
 * exports a function `(app, gateway) => app` that adds its routes; each route names the permission it needs
 * (permission.ts, src/admin/roles.ts).
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { errorResponse } from '../../errors/gateway-error.ts'
import { clientAddressOf } from '../client-address.ts'
import { presentsCredential } from '../../keys/presented-key.ts'
import { withSecurityHeaders } from '../security-headers.ts'
import { adminResponses, jsonResponse } from './admin-http.ts'
import { auditRoutes } from './audit.ts'
import { mcpAdminRoutes } from './mcp.ts'
import { keyRoutes } from './keys.ts'
import { workflowRoutes } from './workflows.ts'
import { limitRoutes } from './limits.ts'
import { usageRoutes } from './usage.ts'
import { batchAdminRoutes } from './batches.ts'
import { fileAdminRoutes } from './files.ts'
import { sessionRoutes } from './session.ts'
import { adminPermission } from './permission.ts'
import { adminPrincipalView, describeAdminPrincipal } from './principal-view.ts'

export function adminRoutes(gateway: Gateway) {
  return (
    new Elysia({ name: 'gateway/admin', prefix: '/admin' })
      // First, so it covers every route below, the guard's refusals included.
      .onAfterHandle({ as: 'local' }, function adminSecurityHeaders({ responseValue }) {
        if (responseValue instanceof Response) withSecurityHeaders(responseValue.headers)
      })
      // Before the guard: sign-in sees (and records) failed attempts too.
      .use(sessionRoutes(gateway))
      // 'local', not 'scoped': a scoped guard also ran on the parent's routes added later (the /v1/* catch-all).
      .resolve({ as: 'local' }, async function adminGuard({ request, server }) {
        // A key, when one is presented, decides; otherwise the dashboard's SSO session cookie (CSRF-checked).
        if (gateway.sso && !presentsCredential(request.headers) && gateway.sso.hasSession(request.headers)) {
          const session = await gateway.sso.authenticate(request, clientAddressOf(server, request))
          if (session.ok) return { adminPrincipal: session.principal, adminAuthError: undefined, sessionCookie: session.setCookie }
          return { adminPrincipal: undefined, adminAuthError: session.error, sessionCookie: session.clearCookie ? gateway.sso.clearedSession() : undefined }
        }
        const result = gateway.adminAuth.authenticate(request.headers, clientAddressOf(server, request))
        return { adminPrincipal: result.ok ? result.principal : undefined, adminAuthError: result.ok ? undefined : result.error, sessionCookie: undefined as string | undefined }
      })
      .onBeforeHandle({ as: 'local' }, function requireAdmin({ adminAuthError, sessionCookie }) {
        if (adminAuthError) {
          const response = errorResponse(adminAuthError)
          if (sessionCookie) response.headers.append('set-cookie', sessionCookie)
          return response
        }
      })
      .onAfterHandle({ as: 'local' }, function renewSession({ responseValue, sessionCookie }) {
        if (sessionCookie && responseValue instanceof Response) responseValue.headers.append('set-cookie', sessionCookie)
      })
      .use(adminPermission)
      .get('/whoami', ({ adminPrincipal }) => Response.json(describeAdminPrincipal(adminPrincipal!)), {
        permission: 'session.read',
        detail: {
          summary: 'The principal behind the presented admin credential: its role, scope and permissions',
          tags: ['admin'],
          responses: adminResponses({ 200: jsonResponse(adminPrincipalView, 'The principal') }),
        },
      })
      .use(keyRoutes(gateway))
      .use(workflowRoutes(gateway))
      .use(limitRoutes(gateway))
      .use(usageRoutes(gateway))
      .use(auditRoutes(gateway))
      .use(mcpAdminRoutes(gateway))
      .use(batchAdminRoutes(gateway))
      .use(fileAdminRoutes(gateway))
  )
}
