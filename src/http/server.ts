/**
 * @module The HTTP shell (one of the few files that import Elysia): routes, OpenAPI, health and readiness.
 * Handlers stay thin: build a RequestContext, hand it to the gateway, return the Response it built. Proxy routes
 * never touch `set.headers`/`set.status`, which would make Elysia re-stream (and corrupt) the body.
 */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { chatCompletionRequest, countTokensRequest, messagesRequest, responsesRequest } from '../../plugins/request-validator/schemas.ts'
import type { Gateway } from '../app.ts'
import { errorResponse, gatewayErrors } from '../errors/gateway-error.ts'
import type { EndpointId } from '../pipeline/context.ts'
import { buildRequestContext } from './ingress.ts'
import { adminRoutes } from './admin/routes.ts'
import { dashboardRoutes } from './dashboard.ts'
import { metricsRoutes } from './metrics.ts'

type BunServer = { requestIP(r: Request): { address: string } | null; timeout(r: Request, seconds: number): void } | null

export const API_VERSION = '1.0'

export function createHttpApp(gateway: Gateway) {
  const maxBodyBytes = gateway.config.server.max_body_bytes

  async function handleV1(request: Request, server: BunServer, endpoint: EndpointId, pathParam?: string): Promise<Response> {
    // Long generations and quiet streams must not be cut by the server's idle timeout; the upstream call has its own.
    server?.timeout(request, 0)
    const ctx = await buildRequestContext({
      request,
      endpoint,
      clientIp: server?.requestIP(request)?.address ?? '',
      log: gateway.log,
      maxBodyBytes,
      pathParam,
    })
    return gateway.handle(ctx)
  }

  const jsonBody = (schema: z.ZodType, description: string) => ({
    description,
    required: true,
    content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown> } },
  })

  return new Elysia({ name: 'gateway/http', serve: { reusePort: false, development: false, idleTimeout: gateway.config.server.idle_timeout_seconds, maxRequestBodySize: maxBodyBytes * 2 + 1024 * 1024 } })
    .onError(function toGatewayError({ code, request }) {
      if (code === 'NOT_FOUND') return errorResponse(gatewayErrors.routeNotFound(request.method, new URL(request.url).pathname))
      if (code === 'PARSE') return errorResponse(gatewayErrors.invalidJson('could not parse the body'))
      gateway.log.error({ code }, 'unhandled HTTP error')
      return errorResponse(gatewayErrors.internal())
    })
    .use(
      openapi({
        path: '/openapi',
        mapJsonSchema: { zod: z.toJSONSchema },
        documentation: {
          info: { title: 'AI Gateway', version: API_VERSION, description: 'OpenAI-compatible gateway in front of many LLM providers.' },
          components: { securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
          security: [{ BearerAuth: [] }],
        },
      }),
    )
    .get('/health', () => Response.json({ status: 'ok' }), { detail: { summary: 'Liveness', tags: ['health'], security: [] } })
    .get(
      '/ready',
      () => {
        const ready = gateway.catalog.isReady()
        const readiness = gateway.readiness()
        // Degraded still answers 200: requests are served from the snapshots, so the load balancer keeps this replica.
        const status = !ready ? 'starting' : readiness.degraded ? 'degraded' : 'ready'
        return Response.json({ status, models_loaded: ready, store: readiness.store, snapshots: readiness.snapshots }, { status: ready ? 200 : 503 })
      },
      { detail: { summary: 'Readiness: the model lists are loaded; `degraded` when the shared database is unreachable (requests are served from snapshots)', tags: ['health'], security: [] } },
    )
    .get('/v1/models', ({ request, server }) => handleV1(request, server, 'models.list'), {
      detail: { summary: 'List the models this key may use as <provider>/<model> selectors and virtual models', tags: ['openai'] },
    })
    .get('/v1/models/*', ({ request, server, params }) => handleV1(request, server, 'models.get', decodeURIComponent(params['*'])), {
      detail: { summary: 'One model by selector', tags: ['openai'] },
    })
    .post('/v1/chat/completions', ({ request, server }) => handleV1(request, server, 'chat.completions'), {
      parse: 'none',
      detail: { summary: 'Chat Completions (streaming with stream: true)', tags: ['openai'], requestBody: jsonBody(chatCompletionRequest, 'OpenAI Chat Completions request; unknown fields pass through.') },
    })
    .post('/v1/responses', ({ request, server }) => handleV1(request, server, 'responses'), {
      parse: 'none',
      detail: { summary: 'Responses API', tags: ['openai'], requestBody: jsonBody(responsesRequest, 'OpenAI Responses request; unknown fields pass through.') },
    })
    .post('/v1/messages', ({ request, server }) => handleV1(request, server, 'messages'), {
      parse: 'none',
      detail: { summary: 'Anthropic Messages API (Claude Code, Anthropic SDKs), served from any provider', tags: ['anthropic'], requestBody: jsonBody(messagesRequest, 'Anthropic Messages request; unknown fields pass through.') },
    })
    .post('/v1/messages/count_tokens', ({ request, server }) => handleV1(request, server, 'messages.count_tokens'), {
      parse: 'none',
      detail: { summary: 'Anthropic token count: native on Anthropic, an estimate elsewhere', tags: ['anthropic'], requestBody: jsonBody(countTokensRequest, 'Anthropic count_tokens request.') },
    })
    .use(dashboardRoutes())
    .use(metricsRoutes(gateway))
    .use(adminRoutes(gateway))
    .all('/v1/*', ({ request, server }) => handleV1(request, server, 'not_found'), { parse: 'none', detail: { hide: true } })
}

export type HttpApp = ReturnType<typeof createHttpApp>
