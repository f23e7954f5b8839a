/**
 * @module The operator dashboard: `/dashboard` serves the single-page app (src/dashboard), bundled by Bun's HTML
 * bundler and embedded by `bun build --compile`. `/` leads browsers there (a request that accepts text/html);
 * API clients probing the base URL (Claude Code and SDK health checks send `HEAD /` or `GET /` with a JSON or
 * wildcard Accept) get a 200 that says where the API is, never a redirect to an HTML page. The page and its
 * assets need no credential; every admin API call the page makes carries the signed-in key.
 */
import { Elysia } from 'elysia'
import dashboardPage from '../dashboard/index.html'

const ROOT_DOCUMENT = { object: 'gateway', api: '/v1', openapi: '/openapi', dashboard: '/dashboard' }

const wantsHtml = (accept: string | null) => (accept ?? '').toLowerCase().includes('text/html')

export function dashboardRoutes() {
  return new Elysia({ name: 'gateway/dashboard' })
    .get('/dashboard', dashboardPage, { detail: { hide: true } })
    .get('/', ({ request, redirect }) => (wantsHtml(request.headers.get('accept')) ? redirect('/dashboard') : Response.json(ROOT_DOCUMENT)), { detail: { hide: true } })
    .head('/', () => new Response(null, { status: 200, headers: { 'content-type': 'application/json' } }), { detail: { hide: true } })
}
