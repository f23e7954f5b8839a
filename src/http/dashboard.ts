/**
 * @module The operator dashboard: `/dashboard` serves the single-page app (src/dashboard), bundled by Bun's HTML
 * bundler and embedded by `bun build --compile`; `/` leads there. The page and its assets need no credential;
 * every admin API call the page makes carries the signed-in key.
 */
import { Elysia } from 'elysia'
import dashboardPage from '../dashboard/index.html'

export function dashboardRoutes() {
  return new Elysia({ name: 'gateway/dashboard' })
    .get('/dashboard', dashboardPage, { detail: { hide: true } })
    .get('/', ({ redirect }) => redirect('/dashboard'), { detail: { hide: true } })
}
