/**
 * @module The gateway's side of MCP's Streamable HTTP transport (revision 2025-11-25, and the earlier revisions
 * it negotiates down to) on /mcp and /mcp/{server}: POST carries one JSON-RPC message (answered as JSON, or as an
 * event stream when the server has messages for the client before the result: ./post-answer.ts), GET opens the
 * session's notification stream, DELETE ends the session. Around every message, in this order: the Origin
 * check (DNS rebinding), the gateway's key authentication (the same authenticator as /v1: a client's credential is
 * for the gateway only and never goes upstream), the user path, the body within its limit, the session (signed,
 * bound to the principal and the endpoint: ./session.ts), the protocol version; then the method (./methods.ts) and
 * one audit entry per request, through the same writer as /v1.
 *
 * Why not the SDK's server transport: it keeps each session's transport and server objects in the memory of the
 * process that created it (sessions pinned to one replica, memory growing with sessions), and its handler owns the
 * whole exchange, where the gateway needs its own authentication, audit entries and limits around each message.
 * The gateway only relays, so the small part of the transport it needs is written here; the SDK is the upstream
 * client and the test client.
 */
import type { AuditRecorder } from '../audit/recorder.ts'
import { gatewayErrors, type GatewayError } from '../errors/gateway-error.ts'
import type { Authentication } from '../keys/authenticator.ts'
import type { AuthFailureLimiter } from '../keys/failure-limiter.ts'
import { requestUserPath, USER_PATH_HEADER } from '../keys/user-path.ts'
import { keyDigest, MAX_PRESENTED_KEY_LENGTH } from '../keys/key-secret.ts'
import { presentedKey } from '../keys/presented-key.ts'
import type { Logger } from '../log/logger.ts'
import type { Principal } from '../pipeline/context.ts'
import { mcpAuditEntry, type McpExchange } from './audit-entry.ts'
import type { McpCatalog } from './catalog.ts'
import type { McpConfig } from './config.ts'
import { asMcpError, mcpErrors, RPC, type McpRequestError } from './errors.ts'
import { errorJson, notificationJson, readMessage, resultJson, type JsonRpcId } from './jsonrpc.ts'
import type { McpMethods } from './methods.ts'
import { ClientRequests } from './client-requests.ts'
import { PostAnswer } from './post-answer.ts'
import type { ClientChannel, RelayedAnswer } from './upstream/call-relay.ts'
import type { EndpointScope } from './names.ts'
import type { NotificationStreams } from './notifications.ts'
import { principalRoles } from './principal-roles.ts'
import { bearerChallenge, publicOrigin } from './resource-metadata.ts'
import type { McpSession, McpSessions } from './session.ts'
import type { ToolView, ToolVisibility } from './visibility.ts'

export const LATEST_PROTOCOL_VERSION = '2025-11-25'
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const

/** How the HTTP shell reads the body (within the size limit and deadline it enforces). */
export type BodyRead = { kind: 'read'; text: string } | { kind: 'too_large' } | { kind: 'timeout' } | { kind: 'aborted' }

export interface McpHttpRequest {
  request: Request
  /** Set for /mcp/{server}. */
  server?: string
  clientIp: () => string
  /** The key in the headers, checked by the HTTP shell with the authenticator /v1 uses. */
  authentication: Authentication
  readBody: (maxBytes: number) => Promise<BodyRead>
}

export interface McpTransportDeps {
  config: McpConfig
  capture: { bodies: boolean; headers: boolean }
  auditEnabled: boolean
  authFailures: AuthFailureLimiter
  /** GATEWAY_REQUIRE_KEY_USER_PATH: managed keys without a bound user path are refused, as on /v1. */
  requireKeyUserPath: boolean
  audit: AuditRecorder
  sessions: McpSessions
  methods: McpMethods
  catalog: McpCatalog
  visibility: () => ToolVisibility
  notifications: NotificationStreams
  log: Logger
  bodyTimeoutSeconds: number
}

type Caller = { principal: Principal; userPath: string | undefined; view: ToolView }

const JSON_HEADERS = { 'content-type': 'application/json' }

export class McpTransport {
  /** In-flight requests of this replica by session and JSON-RPC id, for `notifications/cancelled`. */
  private readonly inFlight = new Map<string, AbortController>()
  private readonly clientRequests = new ClientRequests()
  private readonly allowedOrigins: Set<string>

  constructor(private readonly deps: McpTransportDeps) {
    this.allowedOrigins = new Set(deps.config.allowed_origins.map((o) => new URL(o).origin))
  }

  async handle(input: McpHttpRequest): Promise<Response> {
    const { request } = input
    const scope: EndpointScope = input.server === undefined ? { kind: 'all' } : { kind: 'server', server: input.server }
    const x = this.exchange(input, scope)
    const refused = this.checkOrigin(request)
    if (refused) return this.finish(x, this.httpError(refused, x))

    const caller = this.authenticate(input, x, scope)
    if ('refusal' in caller) return this.finish(x, caller.refusal)

    switch (request.method) {
      case 'POST':
        return this.post(input, x, scope, caller)
      case 'GET':
        return this.openStream(input, x, scope, caller)
      case 'DELETE':
        return this.endSession(input, x, scope, caller)
      default:
        return this.finish(x, this.httpError(asMcpError(gatewayErrors.methodNotAllowed(request.method, x.path)), x, { allow: 'GET, POST, DELETE' }))
    }
  }

  private exchange(input: McpHttpRequest, scope: EndpointScope): McpExchange {
    const id = Bun.randomUUIDv7()
    const clientRequestId = input.request.headers.get('x-request-id')
    let ip: string | undefined
    const x: McpExchange = {
      id,
      startedAt: new Date(),
      startNs: Bun.nanoseconds(),
      requestId: clientRequestId && clientRequestId.length <= 200 ? clientRequestId : id,
      headers: input.request.headers,
      path: scope.kind === 'all' ? '/mcp' : `/mcp/${scope.server}`,
      method: input.request.method,
      get clientIp() {
        ip ??= input.clientIp()
        return ip
      },
      status: 200,
    }
    return x
  }

  private checkOrigin(request: Request): McpRequestError | undefined {
    const origin = request.headers.get('origin')
    if (origin === null) return undefined
    const own = new URL(request.url).origin
    if (origin === own || this.allowedOrigins.has(origin)) return undefined
    return mcpErrors.originNotAllowed(origin)
  }

  private authenticate(input: McpHttpRequest, x: McpExchange, scope: EndpointScope): Caller | { refusal: Response } {
    const { request } = input
    const result = input.authentication
    if (result.kind !== 'authenticated') {
      let error: GatewayError
      if (result.kind === 'unavailable')
        error = gatewayErrors.unavailable(
          'The credential cannot be checked right now (the key store or the token issuer cannot be reached); try again shortly.',
          'key_store_unavailable',
        )
      else {
        x.authFailureReason = result.reason
        x.apiKeyHash = presentedKeyHash(request.headers)
        if (!this.deps.authFailures.shouldAudit(x.clientIp, result.kind === 'throttled' ? 'throttled' : result.failure)) x.suppressed = true
        error = result.kind === 'throttled' ? gatewayErrors.authThrottled(result.retryAfterSeconds) : gatewayErrors.unauthenticated()
      }
      const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(this.deps.config, request, x.path) } : {}
      return { refusal: this.httpError(asMcpError(error), x, headers) }
    }
    const principal = result.principal
    x.principal = principal
    x.apiKeyHash = principal.keyHash?.slice(0, 16)
    if (this.deps.requireKeyUserPath && (principal.method === 'managed_key' || principal.method === 'jwt') && principal.userPath === undefined) {
      return { refusal: this.httpError(asMcpError(gatewayErrors.keyUserPathRequired()), x) }
    }
    const userPath = requestUserPath(principal.userPath, request.headers.get(USER_PATH_HEADER))
    if (!userPath.ok) {
      const error =
        userPath.problem === 'invalid'
          ? gatewayErrors.invalidRequest(`X-Gateway-User-Path: ${userPath.reason}.`, USER_PATH_HEADER, 'invalid_user_path')
          : gatewayErrors.forbidden(`X-Gateway-User-Path: ${userPath.reason}; a key may only narrow its own path.`, 'user_path_not_allowed')
      return { refusal: this.httpError(asMcpError(error), x) }
    }
    x.userPath = userPath.path
    const view = this.deps.visibility().viewFor({ keyId: principal.keyId, userPath: userPath.path, roles: principalRoles(principal) })
    if (scope.kind === 'server') {
      const entry = this.deps.catalog.get(scope.server)
      // A server the caller may not use is answered as one that does not exist.
      if (!entry || !view.canUseServer(entry.name, entry.toolNames)) return { refusal: this.httpError(mcpErrors.unknownServer(scope.server), x) }
    }
    return { principal, userPath: userPath.path, view }
  }

  private async post(input: McpHttpRequest, x: McpExchange, scope: EndpointScope, caller: Caller): Promise<Response> {
    const { request } = input
    const contentType = request.headers.get('content-type')
    if (contentType !== null && !/^application\/json\s*(;|$)/i.test(contentType)) return this.finish(x, this.httpError(mcpErrors.unsupportedMediaType(), x))
    const accept = request.headers.get('accept')
    if (accept !== null && !/application\/json|text\/event-stream|\*\/\*/i.test(accept)) return this.finish(x, this.httpError(mcpErrors.notAcceptable(), x))

    const body = await input.readBody(this.deps.config.max_request_bytes)
    if (body.kind !== 'read') {
      const error =
        body.kind === 'too_large'
          ? gatewayErrors.bodyTooLarge(this.deps.config.max_request_bytes)
          : body.kind === 'timeout'
            ? gatewayErrors.bodyTimeout(this.deps.bodyTimeoutSeconds)
            : gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
      return this.finish(x, this.httpError(asMcpError(error), x, { connection: 'close' }))
    }
    let value: unknown
    try {
      value = JSON.parse(body.text)
    } catch (error) {
      return this.finish(x, this.httpError(mcpErrors.parse((error as Error).message), x))
    }
    const message = readMessage(value)
    if ('status' in message) return this.finish(x, this.httpError(message, x))
    if (message.kind === 'response') return this.clientAnswer(request, caller, scope, message.id, message.answer)
    x.method = message.method
    if (message.kind === 'request') x.jsonrpcId = message.id
    const meta = message.params._meta
    if (meta && typeof meta === 'object' && !Array.isArray(meta)) x.meta = meta as Record<string, unknown>

    if (message.kind === 'request' && message.method === 'initialize') return this.initialize(x, scope, caller, message.id, message.params)

    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId === null) return this.finish(x, this.httpError(mcpErrors.missingSession(), x))
    const checked = await this.deps.sessions.check(sessionId, caller.principal.id, scope.kind === 'all' ? '' : scope.server)
    if (!checked.ok) return this.finish(x, this.httpError(mcpErrors.sessionNotFound(), x))
    const session = checked.session
    x.mcpSessionId = session.id
    x.protocolVersion = session.protocolVersion
    const version = request.headers.get('mcp-protocol-version')
    if (version !== null && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
      return this.finish(x, this.httpError(mcpErrors.unsupportedProtocolVersion(version, SUPPORTED_PROTOCOL_VERSIONS), x))
    }

    if (message.kind === 'notification') {
      if (message.method === 'notifications/cancelled') this.cancel(session, message.params.requestId)
      return new Response(null, { status: 202 })
    }
    return this.request(request, x, scope, caller, session, message.id, message.method, message.params)
  }

  /**
   * One request, answered as JSON, or as an event stream once the server has something for the client before the
   * result (./post-answer.ts): then the Response goes out at once and the result, and the audit entry, follow.
   */
  private async request(
    request: Request,
    x: McpExchange,
    scope: EndpointScope,
    caller: Caller,
    session: McpSession,
    id: JsonRpcId,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Response> {
    const flightKey = `${session.nonce}:${typeof id}:${id}`
    const cancel = new AbortController()
    this.inFlight.set(flightKey, cancel)
    // One signal for the call: the client going away aborts it as `notifications/cancelled` does.
    const clientGone = () => cancel.abort()
    request.signal.addEventListener('abort', clientGone, { once: true })
    const canStream = method !== 'ping' && /text\/event-stream|\*\/\*/i.test(request.headers.get('accept') ?? '*/*')
    const stream = new PostAnswer(canStream, x.requestId, clientGone)
    const answering = this.deps.methods.answer({
      id,
      method,
      params,
      scope,
      view: caller.view,
      principal: caller.principal,
      userPath: caller.userPath,
      origin: publicOrigin(this.deps.config, request),
      urlElicitation: session.urlElicitation,
      client: canStream ? this.clientChannel(session, stream, x) : undefined,
      signal: cancel.signal,
      exchange: x,
    })
    const done = () => {
      request.signal.removeEventListener('abort', clientGone)
      if (this.inFlight.get(flightKey) === cancel) this.inFlight.delete(flightKey)
    }
    const first = canStream ? await stream.firstOf(answering) : await answering.finally(done)
    if (!(first instanceof Response)) {
      done()
      if (!first.ok) return this.finish(x, this.rpcError(id, first.error, x), method === 'ping')
      // Tagged as it is made: setting a header on a made Response copies its headers.
      const response = new Response(first.json, { headers: { 'content-type': 'application/json', 'x-request-id': x.requestId } })
      if (method !== 'ping') this.record(x, response)
      return response
    }
    x.stream = true
    void answering
      .then((answer) => {
        if (answer.ok) stream.end(answer.json)
        else {
          x.error = answer.error
          x.status = answer.error.status
          stream.end(errorJson(id, answer.error.toRpcError()))
        }
        this.record(x, first)
      })
      .finally(done)
    return first
  }

  /**
   * What an upstream's messages about a call may reach the client through: its stream, within what the client
   * supports. Each request of the server's is an audit entry of its own (its method, the server, the answer's status).
   */
  private clientChannel(session: McpSession, stream: PostAnswer, call: McpExchange): ClientChannel {
    return {
      notify: (method, params) => void stream.send(notificationJson(method, params)),
      ask: async (method, params, signal) => {
        const asked = this.relayedExchange(call, method, params)
        const refusal = unsupportedBy(session, method, params)
        const answer: RelayedAnswer = refusal
          ? { error: { code: RPC.methodNotFound, message: refusal } }
          : await this.clientRequests.ask(stream, session.nonce, method, params, signal)
        if ('error' in answer) {
          asked.error = mcpErrors.clientAnswered(call.server ?? '', answer.error, refusal !== undefined)
          asked.status = asked.error.status
        } else asked.result = answer.result
        this.record(asked)
        return answer
      },
    }
  }

  /** The audit record of a request a server sent the client during `call`: the call's caller, session and server. */
  private relayedExchange(call: McpExchange, method: string, params: Record<string, unknown>): McpExchange {
    return {
      id: Bun.randomUUIDv7(),
      startedAt: new Date(),
      startNs: Bun.nanoseconds(),
      requestId: call.requestId,
      headers: call.headers,
      path: call.path,
      method,
      clientIp: call.clientIp,
      principal: call.principal,
      userPath: call.userPath,
      apiKeyHash: call.apiKeyHash,
      mcpSessionId: call.mcpSessionId,
      protocolVersion: call.protocolVersion,
      server: call.server,
      exposedName: call.exposedName,
      upstreamName: call.upstreamName,
      meta: call.meta,
      // What a server asks (a prompt, a question for the user) is a body: kept only when bodies are logged.
      params: this.deps.capture.bodies ? params : undefined,
      status: 200,
    }
  }

  /** A client's answer to a request relayed to it: routed to the call that waits for it, on this replica. */
  private async clientAnswer(request: Request, caller: Caller, scope: EndpointScope, id: unknown, answer: RelayedAnswer): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId === null) return new Response(null, { status: 202 })
    const checked = await this.deps.sessions.check(sessionId, caller.principal.id, scope.kind === 'all' ? '' : scope.server)
    if (checked.ok) this.clientRequests.answered(checked.session.nonce, id, answer)
    return new Response(null, { status: 202 })
  }

  private initialize(x: McpExchange, scope: EndpointScope, caller: Caller, id: JsonRpcId, params: Record<string, unknown>): Response {
    const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : ''
    const protocolVersion = (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : LATEST_PROTOCOL_VERSION
    const capabilities = params.capabilities as { elicitation?: { url?: unknown; form?: unknown }; sampling?: unknown } | undefined
    const elicitation = capabilities?.elicitation
    const declared = (v: unknown) => typeof v === 'object' && v !== null
    const session = this.deps.sessions.open({
      principalId: caller.principal.id,
      scope: scope.kind === 'all' ? '' : scope.server,
      protocolVersion,
      urlElicitation: declared(elicitation?.url),
      // An empty elicitation capability is form mode (the revisions before modes existed).
      formElicitation: declared(elicitation) && (declared(elicitation?.form) || !declared(elicitation?.url)),
      sampling: declared(capabilities?.sampling),
    })
    x.mcpSessionId = session.id
    x.protocolVersion = protocolVersion
    x.params = { protocolVersion: asked, clientInfo: params.clientInfo }
    const result = {
      protocolVersion,
      capabilities: this.capabilities(scope),
      serverInfo: { name: 'ai-gateway', title: scope.kind === 'all' ? 'AI gateway: MCP servers' : `AI gateway: ${scope.server}`, version: '1.0' },
      instructions: this.instructions(scope),
    }
    return this.finish(x, new Response(resultJson(id, JSON.stringify(result)), { headers: { ...JSON_HEADERS, 'mcp-session-id': session.id } }))
  }

  private capabilities(scope: EndpointScope): Record<string, unknown> {
    const full = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} }
    if (scope.kind === 'all') return full
    const upstream = this.deps.catalog.get(scope.server)?.capabilities
    if (!upstream) return full
    const out: Record<string, unknown> = {}
    if (upstream.tools) out.tools = full.tools
    if (upstream.prompts) out.prompts = full.prompts
    if (upstream.resources) out.resources = full.resources
    if (upstream.completions) out.completions = {}
    return out
  }

  private instructions(scope: EndpointScope): string {
    if (scope.kind === 'server') return `Tools, prompts and resources of the MCP server '${scope.server}', through the AI gateway.`
    return 'Tools, prompts and resources of several MCP servers, through the AI gateway. Names are <server>__<name>; resource URIs are mcp-gateway://<server>/<uri>.'
  }

  private async openStream(input: McpHttpRequest, x: McpExchange, scope: EndpointScope, caller: Caller): Promise<Response> {
    const { request } = input
    const accept = request.headers.get('accept') ?? ''
    if (!/text\/event-stream|\*\/\*/i.test(accept)) return this.finish(x, this.httpError(mcpErrors.notAcceptable(), x))
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId === null) return this.finish(x, this.httpError(mcpErrors.missingSession(), x))
    const checked = await this.deps.sessions.check(sessionId, caller.principal.id, scope.kind === 'all' ? '' : scope.server)
    if (!checked.ok) return this.finish(x, this.httpError(mcpErrors.sessionNotFound(), x))
    const body = this.deps.notifications.open(scope, caller.view, request.headers.get('last-event-id'), request.signal)
    return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' } })
  }

  private async endSession(input: McpHttpRequest, x: McpExchange, scope: EndpointScope, caller: Caller): Promise<Response> {
    const sessionId = input.request.headers.get('mcp-session-id')
    if (sessionId === null) return this.finish(x, this.httpError(mcpErrors.missingSession(), x))
    const checked = await this.deps.sessions.check(sessionId, caller.principal.id, scope.kind === 'all' ? '' : scope.server)
    if (!checked.ok) return this.finish(x, this.httpError(mcpErrors.sessionNotFound(), x))
    await this.deps.sessions.end(checked.session)
    return new Response(null, { status: 204 })
  }

  private cancel(session: McpSession, requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    this.inFlight.get(`${session.nonce}:${typeof requestId}:${requestId}`)?.abort()
  }

  /** An answer about the HTTP exchange itself: the error's status, `id: null`. */
  private httpError(error: McpRequestError, x: McpExchange, headers: Record<string, string> = {}): Response {
    x.error = error
    x.status = error.status
    return new Response(errorJson(null, error.toRpcError()), { status: error.status, headers: { ...JSON_HEADERS, ...error.headers, ...headers } })
  }

  /** An answer to one request: HTTP 200 carrying its JSON-RPC error; the audit entry keeps the error's status. */
  private rpcError(id: JsonRpcId, error: McpRequestError, x: McpExchange): Response {
    x.error = error
    x.status = error.status
    return new Response(errorJson(id, error.toRpcError()), { headers: { ...JSON_HEADERS, ...error.headers } })
  }

  /** Records the audit entry (unless `quiet`: pings and notifications) and tags the response. */
  private finish(x: McpExchange, response: Response, quiet = false): Response {
    response.headers.set('x-request-id', x.requestId)
    if (!quiet) this.record(x, response)
    return response
  }

  private record(x: McpExchange, response?: Response): void {
    if (!this.deps.auditEnabled) return
    if (x.suppressed) {
      this.deps.audit.recordSuppressed()
      return
    }
    // Read only when kept: a Response's headers are made when first read.
    if (this.deps.capture.headers) x.responseHeaders = response?.headers
    try {
      // The texts already made for the call: the audit log splices them in instead of serialising the bodies again.
      const response = this.deps.capture.bodies ? x.resultJson : undefined
      this.deps.audit.record(mcpAuditEntry(x, this.deps.capture), x.paramsJson !== undefined || response !== undefined ? { request: x.paramsJson, response } : undefined)
    } catch (error) {
      this.deps.log.error({ err: error, request_id: x.requestId }, 'MCP audit entry could not be built')
    }
  }
}

/** Why a server's request about a call cannot go to this client (it did not declare the capability); undefined when it can. */
function unsupportedBy(session: McpSession, method: string, params: Record<string, unknown>): string | undefined {
  const supported =
    method === 'sampling/createMessage' ? session.sampling : method === 'elicitation/create' ? (params.mode === 'url' ? session.urlElicitation : session.formElicitation) : false
  return supported ? undefined : `The caller's client does not support ${method}${method === 'elicitation/create' ? ` (${params.mode === 'url' ? 'url' : 'form'} mode)` : ''}.`
}

function presentedKeyHash(headers: Headers): string | undefined {
  const presented = presentedKey(headers)
  return presented.kind === 'key' && presented.key.length <= MAX_PRESENTED_KEY_LENGTH ? keyDigest(presented.key).toString('hex').slice(0, 16) : undefined
}
