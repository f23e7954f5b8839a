/**
 * @module `GET /metrics` in the Prometheus text format. It takes an unscoped admin credential (the master key, or
 * a key of any admin role bound to no user path) unless `metrics.public` opens it for a scraper on a private network;
 * 404 when metrics are switched off.
 */
import { Elysia } from 'elysia'
import type { Gateway } from '../app.ts'
import { clientAddressOf } from './client-address.ts'
import { openApiSchema } from './openapi-schema.ts'
import { gatewayErrorDoc } from './doc-schemas.ts'
import { refusal } from '../admin/roles.ts'
import { errorResponse, gatewayErrors } from '../errors/gateway-error.ts'

const errorDoc = { description: 'GatewayError', content: { 'application/json': { schema: openApiSchema(gatewayErrorDoc, { io: 'input' }) } } }
const responses = {
  200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' as const } } } },
  401: errorDoc,
  403: errorDoc,
  404: { ...errorDoc, description: 'Metrics are switched off' },
}

export function metricsRoutes(gateway: Gateway) {
  return new Elysia({ name: 'gateway/metrics' }).get(
    '/metrics',
    async ({ request, server }) => {
      const { metrics } = gateway
      if (!metrics) return errorResponse(gatewayErrors.routeNotFound('GET', '/metrics'))
      if (!gateway.config.metrics.public) {
        const auth = gateway.adminAuth.authenticate(request.headers, clientAddressOf(server, request))
        if (!auth.ok) return errorResponse(auth.error)
        // Counters of every tenant together: an unscoped principal's (src/admin/roles.ts).
        const refused = refusal(auth.principal.admin, 'operations.read')
        if (refused) return errorResponse(refused)
      }
      const { text, contentType } = await metrics.expose()
      return new Response(text, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } })
    },
    { detail: { summary: 'Prometheus metrics (admin credential unless METRICS_PUBLIC=true)', tags: ['health'], responses } },
  )
}
