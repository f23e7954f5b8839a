/**
 * @module The dashboard's OpenID sign-in routes (src/sso/dashboard-sso.ts does the work): /auth/oidc/login,
 * /auth/oidc/callback, GET /auth/oidc/session (the signed-in person and the CSRF token the dashboard sends with
 * state-changing calls) and POST /auth/oidc/logout. Not mounted when auth.oidc is not configured.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../app.ts'
import { errorResponse } from '../errors/gateway-error.ts'
import { CSRF_HEADER, type DashboardSso, SSO_PATHS } from '../sso/dashboard-sso.ts'
import { describeAdminPrincipal } from './admin/principal-view.ts'
import { clientAddressOf } from './client-address.ts'
import { withSecurityHeaders } from './security-headers.ts'

type Server = Parameters<typeof clientAddressOf>[0]

export function ssoRoutes(gateway: Gateway, sso: DashboardSso) {
  const info = (request: Request, server: Server) => ({ request, clientIp: clientAddressOf(server, request)() })
  const secured = async (response: Response | Promise<Response>) => {
    const r = await response
    withSecurityHeaders(r.headers)
    return r
  }
  async function current(request: Request, server: Server) {
    const auth = await sso.authenticate(request, clientAddressOf(server, request))
    if (auth.ok) return { auth }
    const response = errorResponse(auth.error)
    if (auth.clearCookie) response.headers.append('set-cookie', sso.clearedSession())
    return { response }
  }
  return new Elysia({ name: 'gateway/sso' })
    .get(SSO_PATHS.login, ({ request, server }) => secured(sso.login(info(request, server))), { detail: { hide: true } })
    .get(SSO_PATHS.callback, ({ request, server }) => secured(sso.callback(info(request, server))), { detail: { hide: true } })
    .get(
      SSO_PATHS.session,
      async ({ request, server }) => {
        const { auth, response } = await current(request, server)
        if (!auth) return secured(response)
        const answer = Response.json({
          ...describeAdminPrincipal(auth.principal),
          email: auth.principal.email ?? null,
          csrf_token: sso.csrfToken(auth.sid),
          csrf_header: CSRF_HEADER,
        })
        answer.headers.set('cache-control', 'no-store')
        if (auth.setCookie) answer.headers.append('set-cookie', auth.setCookie)
        return secured(answer)
      },
      { detail: { hide: true } },
    )
    .post(
      SSO_PATHS.logout,
      async ({ request, server }) => {
        const { auth, response } = await current(request, server)
        if (!auth) return secured(response)
        return secured(sso.logout(info(request, server), auth))
      },
      { parse: 'none', detail: { hide: true } },
    )
}
