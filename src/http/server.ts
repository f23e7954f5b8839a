/**
 * @module The HTTP shell (one of the few files that import Elysia): routes, OpenAPI, health and readiness.
 * Handlers stay thin: build a RequestContext, hand it to the gateway, return the Response it built. Proxy routes
 * never touch `set.headers`/`set.status`, which would make Elysia re-stream (and corrupt) the body.
 */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../app.ts'
import { errorResponse, GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { EndpointId } from '../pipeline/context.ts'
import { type BodyKind, ENDPOINTS, type Endpoint } from '../protocols/endpoints.ts'
import { gatewayErrorDoc } from './doc-schemas.ts'
import { refusal } from '../admin/roles.ts'
import { clientAddressOf } from './client-address.ts'
import { buildRequestContext } from './ingress.ts'
import { KeyAuthenticator } from '../keys/authenticator.ts'
import { presentsCredential } from '../keys/presented-key.ts'
import { adminRoutes } from './admin/routes.ts'
import { dashboardRoutes } from './dashboard.ts'
import { metricsRoutes } from './metrics.ts'
import { mcpRoutes } from './mcp.ts'
import { ssoRoutes } from './sso.ts'
import { lazyDocObject, openApiSchema } from './openapi-schema.ts'
import { decodePathParam } from './path-param.ts'
import { withSecurityHeaders } from './security-headers.ts'

type BunServer = { requestIP(r: Request): { address: string } | null; timeout(r: Request, seconds: number): void } | null

export const API_VERSION = '1.0'

/** `reusePort`: several processes listen on the same port (the workers of GATEWAY_WORKERS). */
export function createHttpApp(gateway: Gateway, options: { reusePort?: boolean } = {}) {
  const maxBodyBytes = gateway.config.server.max_body_bytes
  const maxUploadBytes = gateway.config.server.max_upload_bytes

  // The key is checked from the headers before the body is read: a request that will be refused costs no memory.
  const credentials = new KeyAuthenticator(gateway.config.master_key, gateway.keys, {
    throttle: gateway.authFailures.throttle,
    allowOpen: gateway.config.auth.allow_open,
    tokens: gateway.identityTokens,
  })
  const bodyDeadlineMs = gateway.config.server.body_timeout_seconds * 1000

  async function handleV1(request: Request, server: BunServer, endpoint: EndpointId, rawPathParam?: string): Promise<Response> {
    const pathParam = rawPathParam === undefined ? undefined : decodePathParam(rawPathParam)
    let address: string | undefined
    const clientIp = () => (address ??= server?.requestIP(request)?.address ?? '')
    const { ctx, closeConnection, uploadLeftUnread } = await buildRequestContext({
      request,
      endpoint,
      clientIp,
      log: gateway.log,
      maxBodyBytes,
      maxUploadBytes,
      bodyDeadlineMs,
      authentication: await credentials.authenticateRequest(request.headers, clientIp),
      requestsEnd: gateway.endRequests,
      pathParam: typeof pathParam === 'string' ? pathParam : rawPathParam,
    })
    // Raised after authentication, like every ingress error (an unauthenticated caller gets the 401).
    if (pathParam instanceof GatewayError) ctx.ingressError ??= pathParam
    // Only now, with the body in: long generations and quiet streams must not be cut by the server's idle timeout
    // (the upstream call has its own deadlines), but a body that stops arriving must be.
    if (!closeConnection) {
      server?.timeout(request, 0)
      if (!uploadLeftUnread) return gateway.handle(ctx)
      const answer = await gateway.handle(ctx)
      if (uploadLeftUnread()) answer.headers.set('connection', 'close')
      return answer
    }
    const response = await gateway.handle(ctx)
    // The rest of an unread body is never read: close instead of draining it for the next request.
    response.headers.set('connection', 'close')
    return response
  }

  const jsonBody = (schema: z.ZodType, description: string, kind: BodyKind = 'json', files: readonly UploadFile[] = DEFAULT_UPLOAD_FILES) => ({
    description,
    required: true,
    content:
      kind === 'multipart' || kind === 'stream'
        ? { 'multipart/form-data': { schema: lazyDocObject(() => uploadSchema(openApiSchema(schema), files)) } }
        : { 'application/json': { schema: openApiSchema(schema) } },
  })

  return (
    new Elysia({
      name: 'gateway/http',
      serve: {
        reusePort: options.reusePort ?? false,
        development: false,
        idleTimeout: gateway.config.server.idle_timeout_seconds,
        // Lifted: past Bun's own limit a request gets a bare 413 that no route sees (no GatewayError, no audit entry).
        // Every route that reads a body bounds it itself (/v1 by GATEWAY_MAX_BODY_BYTES, /admin by
        // ADMIN_MAX_BODY_BYTES); a body nobody reads costs nothing (Bun reads the socket only as the body is read).
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      },
    })
      .onError(function toGatewayError({ code, request }) {
        if (code === 'NOT_FOUND') return errorResponse(gatewayErrors.routeNotFound(request.method, new URL(request.url).pathname))
        if (code === 'PARSE') return errorResponse(gatewayErrors.invalidJson('could not parse the body'))
        gateway.log.error({ code }, 'unhandled HTTP error')
        return errorResponse(gatewayErrors.internal())
      })
      .use(
        openapi({
          path: '/openapi',
          // No HTML reference page: the plugin's page runs Scalar's script from a CDN, unpinned, on the dashboard's
          // origin. The document is at /openapi/json, for any OpenAPI viewer (docs/dashboard.md).
          provider: null,
          mapJsonSchema: { zod: z.toJSONSchema },
          documentation: {
            info: { title: 'AI Gateway', version: API_VERSION, description: 'OpenAI-compatible gateway in front of many LLM providers.' },
            components: { securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
            security: [{ BearerAuth: [] }],
          },
        }),
      )
      .get('/openapi', () => new Response(null, { status: 302, headers: withSecurityHeaders(new Headers({ location: '/openapi/json' })) }), { detail: { hide: true } })
      .get('/health', () => Response.json({ status: 'ok' }), {
        detail: {
          summary: 'Liveness',
          tags: ['health'],
          security: [],
          responses: { 200: { description: 'Alive', content: { 'application/json': { schema: openApiSchema(z.object({ status: z.literal('ok') })) } } } },
        },
      })
      .get(
        '/ready',
        ({ request, server }) => {
          const ready = gateway.catalog.isReady()
          const readiness = gateway.readiness()
          // Degraded still answers 200: requests are served from the snapshots, so the load balancer keeps this replica.
          const status = !ready ? 'starting' : readiness.degraded ? 'degraded' : 'ready'
          const httpStatus = ready ? 200 : 503
          // The details (backend, snapshots, audit counters) are for operators: only with an admin credential.
          if (!presentsCredential(request.headers)) return Response.json({ status }, { status: httpStatus })
          const auth = gateway.adminAuth.authenticate(request.headers, clientAddressOf(server, request))
          if (!auth.ok) return errorResponse(auth.error)
          // Every tenant's store and audit counters together: an unscoped principal's, as /metrics.
          const refused = refusal(auth.principal.admin, 'operations.read')
          if (refused) return errorResponse(refused)
          return Response.json({ status, models_loaded: ready, store: readiness.store, snapshots: readiness.snapshots, audit: readiness.audit }, { status: httpStatus })
        },
        {
          detail: {
            summary:
              'Readiness: the model lists are loaded; `degraded` when the shared database is unreachable (requests are served from snapshots) or audit entries are held in memory or lost because the disk refuses writes. Without a credential the answer is the status alone; with an unscoped admin credential (the master key, or a key with an admin role bound to no user path) it adds the store, snapshots and audit counters',
            tags: ['health'],
            security: [],
            responses: {
              200: readiness('Serving'),
              401: readinessError('The presented credential was refused'),
              403: readinessError('The presented key has no admin role, or one confined to a user path'),
              503: readiness('Still loading the model lists'),
            },
          },
        },
      )
      // TRACE echoes a request back (cross-site tracing); no route serves it, on any path.
      .route('TRACE', '/*', refuseTrace, { parse: 'none', detail: { hide: true } } as never)
      .route('TRACE', '/v1/*', refuseTrace, { parse: 'none', detail: { hide: true } } as never)
      .use(
        v1Routes(
          ENDPOINTS.filter((e) => e.method !== 'ALL'),
          handleV1,
          jsonBody,
        ),
      )
      .use(dashboardRoutes())
      .use(metricsRoutes(gateway))
      .use(adminRoutes(gateway))
      .use(gateway.sso ? ssoRoutes(gateway, gateway.sso) : new Elysia({ name: 'gateway/sso-off' }))
      .use(mcpRoutes(gateway, credentials))
      .use(
        v1Routes(
          ENDPOINTS.filter((e) => e.method === 'ALL'),
          handleV1,
          jsonBody,
        ),
      )
  )
}

const readinessSchema = z.object({
  status: z.enum(['starting', 'ready', 'degraded']),
  /** Only with an admin credential, as the details below. */
  models_loaded: z.boolean().optional(),
  store: z.object({ backend: z.string(), reachable: z.boolean() }).loose().optional(),
  snapshots: z.array(z.object({ name: z.string(), fresh: z.boolean(), loaded_at: z.string().nullable() })).optional(),
  audit: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
})
const readiness = (description: string) => ({ description, content: { 'application/json': { schema: openApiSchema(readinessSchema) } } })
const readinessError = (description: string) => ({ description, content: { 'application/json': { schema: openApiSchema(gatewayErrorDoc) } } })

function refuseTrace({ request }: { request: Request }): Response {
  return errorResponse(gatewayErrors.methodNotAllowed('TRACE', new URL(request.url).pathname), { allow: 'GET, POST' })
}

/** /v1/messages and count_tokens answer errors in Anthropic's shape (src/protocols/anthropic-messages/errors.ts). */
const anthropicErrorSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
// 402 budget, 408 body deadline, 413 body too big, 415 a body not sent as JSON, 429 limits, 502/503/504 upstream failures.
const V1_ERROR_STATUSES = [400, 401, 402, 403, 404, 408, 413, 415, 429, 500, 502, 503, 504]

/** The answers of a /v1 row: the provider-shaped JSON (or an SSE stream when the body asks for one), or an error. */
function v1Responses(e: Endpoint) {
  const error = { description: 'Error', content: { 'application/json': { schema: openApiSchema(e.openapi.tag === 'anthropic' ? anthropicErrorSchema : gatewayErrorDoc) } } }
  const ok = {
    description: 'The answer, in the wire format of this endpoint',
    content: {
      ...(e.answers.includes('json') ? { 'application/json': { schema: e.response ? openApiSchema(e.response) : { type: 'object' } } } : {}),
      ...(e.answers.includes('sse') ? { 'text/event-stream': { schema: { type: 'string' } } } : {}),
      ...(e.answers.includes('binary') ? binaryContent(e) : {}),
      ...(e.answers.includes('text') ? { 'text/plain': { schema: { type: 'string' } } } : {}),
    },
  }
  // A row on every method is documented under each, TRACE included, which no route serves (405: refuseTrace).
  const statuses = e.method === 'ALL' ? [...V1_ERROR_STATUSES, 405] : V1_ERROR_STATUSES
  return { 200: ok, ...Object.fromEntries(statuses.map((status) => [String(status), error])) }
}

/** A binary answer (audio) in each of the row's media types, as bytes. */
function binaryContent(e: Endpoint) {
  return Object.fromEntries((e.openapi.binaryTypes ?? ['application/octet-stream']).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
}

/** `rawPathParam`: the route's path parameter (the rest of a wildcard route's path, one `:id` segment), percent-encoded. */
type V1Handler = (request: Request, server: BunServer, endpoint: EndpointId, rawPathParam?: string) => Promise<Response>

/** One route per row of the endpoint table; the body is read by ingress, never parsed by Elysia. */
function v1Routes(rows: readonly Endpoint[], handle: V1Handler, jsonBody: (schema: z.ZodType, description: string, kind: BodyKind, files?: readonly UploadFile[]) => unknown) {
  const app = new Elysia({ name: `gateway/v1/${rows.map((e) => e.id).join(',')}` })
  for (const e of rows) {
    const id = e.id as EndpointId
    // The path's one parameter: the rest of the path (`*`) or one segment (`:id`).
    const param = e.path.endsWith('*') ? '*' : e.path.match(/:(\w+)/)?.[1]
    const detail = {
      summary: e.openapi.summary,
      tags: [e.openapi.tag],
      ...(e.openapi.hide ? { hide: true } : {}),
      ...(e.request ? { requestBody: jsonBody(e.request, e.openapi.bodyDescription ?? '', e.body, e.openapi.files) } : {}),
      responses: v1Responses(e),
    }
    type Context = { request: Request; server: BunServer; params: Record<string, string> }
    // Elysia compiles each handler from what it reads: only routes with a parameter touch `params`. It hands `*` as
    // received and `:id` decoded: encoded again, so both are decoded once (decodePathParam), never twice.
    const handler =
      param === '*'
        ? ({ request, server, params }: Context) => handle(request, server, id, params['*'] ?? '')
        : param
          ? ({ request, server, params }: Context) => handle(request, server, id, encodeURIComponent(params[param] ?? ''))
          : ({ request, server }: Context) => handle(request, server, id)
    app.route(e.method, e.path, handler, {
      parse: 'none',
      detail,
    } as never)
  }
  return app
}

type UploadFile = { name: string; required: boolean }
const DEFAULT_UPLOAD_FILES: readonly UploadFile[] = [{ name: 'file', required: true }]

/** A multipart row's form: its text fields as the request schema says, and the files it uploads (`openapi.files`). */
function uploadSchema(fields: Record<string, unknown>, files: readonly UploadFile[]): Record<string, unknown> {
  const fileProperties = Object.fromEntries(files.map((file) => [file.name, { type: 'string', format: 'binary' }]))
  const properties = { ...((fields.properties as Record<string, unknown> | undefined) ?? {}), ...fileProperties }
  const required = [...((fields.required as string[] | undefined) ?? []), ...files.filter((file) => file.required).map((file) => file.name)]
  return { ...fields, properties, required }
}
