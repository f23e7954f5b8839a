/**
 * @module The MCP endpoints in the HTTP shell: /mcp (every server the key may see), /mcp/{server} (one), and the
 * OAuth protected-resource metadata that tells MCP clients how to authenticate. Handlers only hand the request to
 * the MCP gateway (src/mcp/gateway.ts) with what the shell knows: the client's address, the key checked by the
 * same authenticator as /v1, and a body reader within the size limit and deadline.
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../app.ts'
import { errorResponse, gatewayErrors } from '../errors/gateway-error.ts'
import type { KeyAuthenticator } from '../keys/authenticator.ts'
import { MCP_SERVER_NAME } from '../mcp/config.ts'
import { METADATA_PATH, resourceMetadata } from '../mcp/resource-metadata.ts'
import type { BodyRead } from '../mcp/transport.ts'
import { readBody } from './body-reader.ts'
import { openApiSchema } from './openapi-schema.ts'

type BunServer = { requestIP(r: Request): { address: string } | null; timeout(r: Request, seconds: number): void } | null
type Context = { request: Request; server: BunServer; params: Record<string, string> }

const rpcSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
})
const rpcAnswer = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
})
const metadataSchema = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string(),
})

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema: openApiSchema(schema) } } })
const ERRORS = Object.fromEntries(
  [400, 401, 403, 404, 406, 408, 413, 415].map((status) => [
    String(status),
    json(rpcAnswer, 'A JSON-RPC error with id null; `error.data` has the gateway error fields (type, code, status_code)'),
  ]),
)

export function mcpRoutes(gateway: Gateway, credentials: KeyAuthenticator) {
  const mcp = gateway.mcp
  const bodyDeadlineMs = gateway.config.server.body_timeout_seconds * 1000

  async function handle(request: Request, server: BunServer, serverName?: string): Promise<Response> {
    // Calls may take as long as their server's deadline and notification streams stay open, so the idle timeout
    // is lifted, but only once a POST's body is in: a body that stops arriving is still cut.
    if (request.method !== 'POST') server?.timeout(request, 0)
    let address: string | undefined
    const clientIp = () => (address ??= server?.requestIP(request)?.address ?? '')
    return mcp.handle({
      request,
      server: serverName,
      clientIp,
      // Through the same credential throttle as /v1: a throttled address is refused before its key is checked.
      authentication: await credentials.authenticateRequest(request.headers, clientIp),
      readBody: async (maxBytes) => {
        const read = (await readBody(request, { maxBytes, deadlineMs: bodyDeadlineMs })) as BodyRead
        if (read.kind === 'read') server?.timeout(request, 0)
        return read
      },
    })
  }
  // Destructured in the handler itself: Elysia compiles a route from what its handler reads, and a handler that
  // takes the whole context gets every part made for it (cookies parsed, then its Response copied to add them).
  const one = ({ request, server, params }: Context) => handle(request, server, params.server)
  const all = ({ request, server }: Context) => handle(request, server)

  const post = (summary: string) => ({
    parse: 'none' as const,
    detail: {
      summary,
      tags: ['mcp'],
      requestBody: { required: true, content: { 'application/json': { schema: openApiSchema(rpcSchema) } } },
      responses: { 200: json(rpcAnswer, 'The JSON-RPC answer (its `result`, or its `error`)'), 202: { description: 'A notification or response was accepted' }, ...ERRORS },
    },
  })
  const get = (summary: string) => ({
    parse: 'none' as const,
    detail: {
      summary,
      tags: ['mcp'],
      responses: {
        200: { description: 'Server-sent events: the list_changed notifications', content: { 'text/event-stream': { schema: { type: 'string' as const } } } },
        ...ERRORS,
      },
    },
  })
  const del = (summary: string) => ({ parse: 'none' as const, detail: { summary, tags: ['mcp'], responses: { 204: { description: 'The session ended' }, ...ERRORS } } })
  const metadata = (resourcePath: (params: Record<string, string>) => string | undefined) => (context: Context) => {
    const path = resourcePath(context.params)
    if (path === undefined) return errorResponse(gatewayErrors.routeNotFound('GET', new URL(context.request.url).pathname))
    return Response.json(resourceMetadata(gateway.config.mcp, context.request, path))
  }
  const metadataDoc = {
    detail: { summary: 'OAuth protected-resource metadata (RFC 9728) of an MCP endpoint', tags: ['mcp'], security: [], responses: { 200: json(metadataSchema, 'The metadata') } },
  }

  const oauthDoc = (summary: string) => ({
    parse: 'none' as const,
    detail: {
      summary,
      tags: ['mcp'],
      security: [],
      responses: {
        200: { description: 'An HTML page' },
        302: { description: 'To the authorization server' },
        400: { description: 'An HTML page saying what went wrong' },
        404: { description: 'An HTML page: the server takes no per-user authorization' },
        502: { description: 'An HTML page: the authorization server failed' },
      },
    },
  })

  return (
    new Elysia({ name: 'gateway/mcp' })
      // Before /mcp/:server (one segment): these have two.
      .get(
        '/mcp/oauth/authorize',
        ({ request }) => mcp.oauthPage(request, 'authorize'),
        oauthDoc("Connect the caller's own account at a per-user OAuth MCP server: redirects to its authorization server (the link a tool call answered)"),
      )
      .get(
        '/mcp/oauth/callback',
        ({ request }) => mcp.oauthPage(request, 'callback'),
        oauthDoc("The upstream authorization server's redirect back: stores the caller's tokens, sealed"),
      )
      .post('/mcp', all, post('MCP Streamable HTTP: one JSON-RPC message to every server the key may use (names are <server>__<name>)'))
      .get('/mcp', all, get("MCP Streamable HTTP: the session's notification stream"))
      .delete('/mcp', all, del('MCP Streamable HTTP: end the session'))
      .post('/mcp/:server', one, post('MCP Streamable HTTP: one JSON-RPC message to one server'))
      .get('/mcp/:server', one, get("MCP Streamable HTTP: the session's notification stream (one server)"))
      .delete('/mcp/:server', one, del('MCP Streamable HTTP: end the session (one server)'))
      .get(
        METADATA_PATH,
        metadata(() => '/mcp'),
        metadataDoc,
      )
      .get(
        `${METADATA_PATH}/mcp`,
        metadata(() => '/mcp'),
        metadataDoc,
      )
      .get(
        `${METADATA_PATH}/mcp/:server`,
        metadata((params) => (MCP_SERVER_NAME.test(params.server ?? '') ? `/mcp/${params.server}` : undefined)),
        metadataDoc,
      )
  )
}
