/**
 * @module Mounts every /admin area behind the admin guard. Each area lives in its own file in this folder and
 * exports a function `(app, gateway) => app` that adds its routes.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../../app.ts'
import { errorResponse } from '../../errors/gateway-error.ts'
import type { Principal } from '../../pipeline/context.ts'
import { z } from 'zod'
import { adminResponses, jsonResponse } from './admin-http.ts'
import { auditRoutes } from './audit.ts'

const whoamiView = z.object({ principal_id: z.string(), auth_method: z.string(), key_id: z.string().nullable() })
import { keyRoutes } from './keys.ts'
import { workflowRoutes } from './workflows.ts'
import { limitRoutes } from './limits.ts'
import { usageRoutes } from './usage.ts'
import { sessionRoutes } from './session.ts'

export function adminRoutes(gateway: Gateway) {
  return (
    new Elysia({ name: 'gateway/admin', prefix: '/admin' })
      // Before the guard: sign-in sees (and records) failed attempts too.
      .use(sessionRoutes(gateway))
      // 'local', not 'scoped': a scoped guard also ran on the parent's routes added later (the /v1/* catch-all).
      .resolve({ as: 'local' }, function adminGuard({ request }) {
        const result = gateway.adminAuth.authenticate(request.headers)
        return { adminPrincipal: result.ok ? result.principal : undefined, adminAuthError: result.ok ? undefined : result.error }
      })
      .onBeforeHandle({ as: 'local' }, function requireAdmin({ adminAuthError }) {
        if (adminAuthError) return errorResponse(adminAuthError)
      })
      .get('/whoami', ({ adminPrincipal }) => Response.json(describe(adminPrincipal!)), {
        detail: { summary: 'The principal behind the presented admin credential', tags: ['admin'], responses: adminResponses({ 200: jsonResponse(whoamiView, 'The principal') }) },
      })
      .use(keyRoutes(gateway))
      .use(workflowRoutes(gateway))
      .use(limitRoutes(gateway))
      .use(usageRoutes(gateway))
      .use(auditRoutes(gateway))
  )
}

function describe(principal: Principal) {
  return { principal_id: principal.id, auth_method: principal.method, key_id: principal.keyId ?? null }
}
