/**
 * @module The operator dashboard: `/dashboard` serves the single-page app (src/dashboard), bundled by Bun's HTML
 * bundler and embedded by `bun build --compile`, with its script and stylesheet under `/dashboard/assets/`
 * (dashboard-bundle.ts), every answer with the dashboard's Content-Security-Policy and no framing
 * (security-headers.ts). `/` leads browsers there (a request that accepts text/html); API clients probing the base
 * URL (Claude Code and SDK health checks send `HEAD /` or `GET /` with a JSON or wildcard Accept) get a 200 that
 * says where the API is, never a redirect to an HTML page. The page and its assets need no credential; every admin
 * API call the page makes carries the signed-in key.
 */
import { Elysia } from 'elysia'
import dashboardPage from '../dashboard/index.html'
import { errorResponse, gatewayErrors } from '../errors/gateway-error.ts'
import { type DashboardBundle, loadDashboardBundle } from './dashboard-bundle.ts'
import { DASHBOARD_CSP, withSecurityHeaders } from './security-headers.ts'

const ROOT_DOCUMENT = { object: 'gateway', api: '/v1', openapi: '/openapi/json', dashboard: '/dashboard' }

const wantsHtml = (accept: string | null) => (accept ?? '').toLowerCase().includes('text/html')

export function dashboardRoutes() {
  // Loaded on the first request for the page (a gateway that never serves it never bundles it), then kept.
  let bundle: Promise<DashboardBundle> | undefined
  const loaded = () => (bundle ??= loadDashboardBundle(dashboardPage))

  return new Elysia({ name: 'gateway/dashboard' })
    .get(
      '/dashboard',
      async () =>
        new Response((await loaded()).html, {
          headers: withSecurityHeaders(new Headers({ 'content-type': 'text/html;charset=utf-8', 'cache-control': 'no-cache' }), DASHBOARD_CSP),
        }),
      { detail: { hide: true } },
    )
    .get(
      '/dashboard/assets/:name',
      async ({ params, request }) => {
        const file = (await loaded()).assets.get(params.name)
        if (!file) return errorResponse(gatewayErrors.routeNotFound('GET', new URL(request.url).pathname))
        const headers = new Headers({ 'content-type': file.contentType, 'cache-control': 'public, max-age=31536000, immutable' })
        return new Response(file.body as Uint8Array<ArrayBuffer>, { headers: withSecurityHeaders(headers, DASHBOARD_CSP) })
      },
      { detail: { hide: true } },
    )
    .get(
      '/',
      ({ request }) =>
        wantsHtml(request.headers.get('accept'))
          ? new Response(null, { status: 302, headers: withSecurityHeaders(new Headers({ location: '/dashboard' })) })
          : new Response(JSON.stringify(ROOT_DOCUMENT), { headers: withSecurityHeaders(new Headers({ 'content-type': 'application/json' })) }),
      { detail: { hide: true } },
    )
    .head('/', () => new Response(null, { status: 200, headers: withSecurityHeaders(new Headers({ 'content-type': 'application/json' })) }), { detail: { hide: true } })
}
