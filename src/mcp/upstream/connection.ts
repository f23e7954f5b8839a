/**
 * @module One upstream MCP server as the gateway's client (the official SDK's `Client` over its Streamable HTTP,
 * HTTP+SSE or stdio transport), shared by every session on this replica. It keeps the server's lists (tools,
 * prompts, resources, templates) and keeps itself connected:
 * - lists are fetched at connect, again on the server's `list_changed` notifications, every `refresh_seconds`,
 *   and after every reconnect, so a restarted server is never shown with an empty or stale list;
 * - a ping every `health_interval_seconds`; a failed ping, a closed transport (a stdio process that exited, an
 *   HTTP server that forgot the session) or a failed connect is retried with exponential back-off (1 s to 60 s,
 *   reset once a connection has stayed up for a minute);
 * - while it reconnects the last known lists stay offered and calls wait up to a few seconds for it;
 * - a call answered 404 by an HTTP server (its session is gone: it restarted) reconnects and is sent once more.
 * Calls to a Streamable HTTP server go straight over HTTP on the client's session
 * (./http-caller.ts), not through the SDK's request path; they relay the server's progress, log messages, sampling
 * and elicitation requests about the call to the call's relay (./call-relay.ts). Other calls relay progress only:
 * a server's requests on stdio or the old SSE transport carry nothing that ties them to one call.
 * A stdio server's stderr is kept as a bounded tail (and logged at a bounded rate); `stop()` ends the process
 * (stdin closed, then SIGTERM, then SIGKILL).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { z } from 'zod'
import type { Logger } from '../../log/logger.ts'
import { isStdioServer, type McpServerConfig } from '../config.ts'
import { mcpErrors, type McpRequestError } from '../errors.ts'
import { boundedFetch, UpstreamRedirected, UpstreamResponseTooLarge } from './bounded-fetch.ts'
import { OutputTail } from './output-tail.ts'
import type { CallRelay } from './call-relay.ts'
import { StreamableHttpCaller } from './http-caller.ts'
import { clearDeadline, deadlines } from '../../pipeline/deadlines.ts'
import { AuthorizationRequired } from '../oauth/token-provider.ts'
import { loadedMcpSdk, loadMcpSdk } from './sdk.ts'

export type UpstreamState = 'connecting' | 'ready' | 'down' | 'stopped'

export interface UpstreamLists {
  tools: Record<string, unknown>[]
  prompts: Record<string, unknown>[]
  resources: Record<string, unknown>[]
  resourceTemplates: Record<string, unknown>[]
}

export interface UpstreamStatus {
  state: UpstreamState
  since: string
  last_error: string | null
  /** Successful connects after the first (a restarted process, a re-created session). */
  reconnects: number
  transport: 'streamable-http' | 'sse' | 'stdio'
  server_info: { name: string; version: string } | null
  protocol_version: string | null
  lists_fetched_at: string | null
  pid: number | null
  /** The last lines a stdio server wrote to stderr. */
  stderr_tail: string | null
}

export interface UpstreamConnectionOptions {
  log: Logger
  callTimeoutMs: number
  maxResponseBytes: number
  healthIntervalMs: number
  refreshMs: number
  /** The server's lists changed (or were fetched for the first time). */
  onListsChanged: () => void
  /** For servers that want the caller's own OAuth token (one connection per credential owner). */
  authProvider?: OAuthClientProvider
  /** Which credential owner's connection this is (for logs). */
  label?: string
}

export type UpstreamResult = { ok: true; result: Record<string, unknown> } | { ok: false; error: McpRequestError }

const EMPTY_LISTS: UpstreamLists = Object.freeze({ tools: [], prompts: [], resources: [], resourceTemplates: [] })
const LOOSE_RESULT = z.looseObject({})
const LIST_PAGE_LIMIT = 100
const LIST_ITEM_LIMIT = 10_000
const CONNECT_TIMEOUT_MS = 30_000
const PING_TIMEOUT_MS = 10_000
/** How long a call waits for a reconnect before it fails. */
const WAIT_FOR_CONNECT_MS = 5_000
const BACKOFF_MIN_MS = 1_000
const BACKOFF_MAX_MS = 60_000
const STABLE_AFTER_MS = 60_000
const CLIENT_INFO = { name: 'ai-gateway', version: '1.0' }
/**
 * Declared upstream so servers may ask; each request is relayed to the caller whose call it is about, which
 * answers it (or the gateway does, with an error, when that caller's client does not support it).
 */
const CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} } }

export class UpstreamConnection {
  lists: UpstreamLists = EMPTY_LISTS
  private state: UpstreamState = 'connecting'
  private since = Date.now()
  private lastError: string | null = null
  private reconnects = 0
  private connectedOnce = false
  private listsFetchedAt: number | null = null
  private client: Client | undefined
  private transport: Transport | undefined
  /** The direct path of calls on a Streamable HTTP server's session; undefined for other transports. */
  private http: StreamableHttpCaller | undefined
  private connecting: Promise<void> | undefined
  private failures = 0
  private readyAt = 0
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private healthTimer: ReturnType<typeof setInterval> | undefined
  private refreshTimer: ReturnType<typeof setInterval> | undefined
  private readonly stderr = new OutputTail()
  private transportKind: UpstreamStatus['transport']
  private refreshing: Promise<void> | undefined
  /** The last connect failed because the server wants this owner to authorize (again): no retries until asked. */
  private needsAuthorization = false

  constructor(
    readonly server: string,
    private readonly config: McpServerConfig,
    private readonly options: UpstreamConnectionOptions,
  ) {
    this.transportKind = isStdioServer(config) ? 'stdio' : config.transport === 'sse' ? 'sse' : 'streamable-http'
  }

  /** Connects in the background; calls made before it is ready wait for it briefly. */
  start(): void {
    void this.ensureConnected()
    this.healthTimer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs)
    this.refreshTimer = setInterval(() => {
      if (this.state === 'ready') void this.refreshLists()
    }, this.options.refreshMs)
    this.healthTimer.unref?.()
    this.refreshTimer.unref?.()
  }

  get ready(): boolean {
    return this.state === 'ready'
  }

  serverCapabilities(): Record<string, unknown> | undefined {
    return this.client?.getServerCapabilities() as Record<string, unknown> | undefined
  }

  status(): UpstreamStatus {
    const version = this.client?.getServerVersion()
    return {
      state: this.state,
      since: new Date(this.since).toISOString(),
      last_error: this.lastError,
      reconnects: this.reconnects,
      transport: this.transportKind,
      server_info: version ? { name: version.name, version: version.version } : null,
      protocol_version: (this.transport as { protocolVersion?: string } | undefined)?.protocolVersion ?? null,
      lists_fetched_at: this.listsFetchedAt ? new Date(this.listsFetchedAt).toISOString() : null,
      pid: this.transportKind === 'stdio' ? ((this.transport as StdioClientTransport | undefined)?.pid ?? null) : null,
      stderr_tail: this.transportKind === 'stdio' ? this.stderr.text() : null,
    }
  }

  /**
   * Sends one request (tools/call, prompts/get, resources/read, completion/complete) and returns its result, or
   * the failure as an McpRequestError (never throws for an upstream's failure).
   */
  async request(method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs?: number; relay?: CallRelay } = {}): Promise<UpstreamResult> {
    const timeoutMs = options.timeoutMs ?? this.options.callTimeoutMs
    for (let attempt = 0; ; attempt++) {
      // Connected: no wait (and no extra await on the hot path).
      const client = this.state === 'ready' && this.client ? this.client : await this.readyClient()
      if (!client && this.needsAuthorization) return { ok: false, error: mcpErrors.authorizationRequired(this.server) }
      if (!client) return { ok: false, error: mcpErrors.serverUnavailable(this.server, this.lastError ?? 'not connected') }
      const http = this.http
      const outcome = http ? await this.callDirect(http, method, params, timeoutMs, options) : undefined
      if (outcome === 'session_gone') {
        if (attempt > 0) return { ok: false, error: mcpErrors.upstreamFailed(this.server, 'the server forgot the session again') }
        this.lost(client, 'the server no longer knows the session (restarted?)')
        continue
      }
      // Not on the direct path, or the per-user token was refused: the SDK's path (which refreshes it).
      if (outcome !== undefined && outcome !== 'unauthorized') return outcome
      const progress = options.relay?.progress
      try {
        const result = await client.request({ method, params } as never, LOOSE_RESULT, {
          signal: options.signal,
          timeout: timeoutMs,
          onprogress: progress ? (p) => progress(p as Record<string, unknown>) : undefined,
        })
        return { ok: true, result: result as Record<string, unknown> }
      } catch (error) {
        // The server forgot our session (it restarted): nothing ran; reconnect and send it once more.
        if (attempt === 0 && isStreamableHttpError(error) && error.code === 404) {
          this.lost(client, 'the server no longer knows the session (restarted?)')
          continue
        }
        return { ok: false, error: this.failure(error, timeoutMs) }
      }
    }
  }

  private async callDirect(
    http: StreamableHttpCaller,
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    options: { signal?: AbortSignal; relay?: CallRelay },
  ): Promise<UpstreamResult | 'session_gone' | 'unauthorized'> {
    // One controller for the call, aborted by its deadline or by the caller's signal (which one: `timedOut`).
    const call = new AbortController()
    let timedOut = false
    // On the process's shared list of deadlines of this length: no timer of its own per call.
    const deadline = deadlines(timeoutMs).start(() => {
      timedOut = true
      call.abort()
    })
    const cancelled = () => call.abort()
    options.signal?.addEventListener('abort', cancelled, { once: true })
    if (options.signal?.aborted) call.abort()
    try {
      const outcome = await http.call(method, params, call.signal, options.relay)
      switch (outcome.kind) {
        case 'result':
          return { ok: true, result: outcome.result }
        case 'rpc_error':
          return { ok: false, error: mcpErrors.fromUpstream(this.server, outcome.error.code, outcome.error.message, outcome.error.data) }
        case 'session_gone':
        case 'unauthorized':
          return outcome.kind
        default:
          if (timedOut) return { ok: false, error: mcpErrors.upstreamTimeout(this.server, Math.round(timeoutMs / 1000)) }
          if (call.signal.aborted) return { ok: false, error: mcpErrors.cancelled() }
          return { ok: false, error: this.failure(outcome.error, timeoutMs) }
      }
    } finally {
      clearDeadline(deadline)
      options.signal?.removeEventListener('abort', cancelled)
    }
  }

  async stop(): Promise<void> {
    this.state = 'stopped'
    clearInterval(this.healthTimer)
    clearInterval(this.refreshTimer)
    clearTimeout(this.retryTimer)
    const client = this.client
    this.client = undefined
    this.http = undefined
    await client?.close().catch(() => {})
  }

  private failure(error: unknown, timeoutMs: number): McpRequestError {
    if (isAuthorizationFailure(error)) return mcpErrors.authorizationRequired(this.server)
    const SdkMcpError = loadedMcpSdk()?.McpError
    if (SdkMcpError && error instanceof SdkMcpError) {
      if (error.code === -32001) return mcpErrors.upstreamTimeout(this.server, Math.round(timeoutMs / 1000))
      if (error.code === -32000 && /connection closed/i.test(error.message)) return mcpErrors.upstreamFailed(this.server, 'the connection closed during the call')
      return mcpErrors.fromUpstream(this.server, error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data)
    }
    if (error instanceof UpstreamResponseTooLarge || (error as { cause?: unknown })?.cause instanceof UpstreamResponseTooLarge) {
      return mcpErrors.upstreamTooLarge(this.server, this.maxResponseBytes())
    }
    if (error instanceof UpstreamRedirected) return mcpErrors.upstreamFailed(this.server, error.message)
    if ((error as Error)?.name === 'AbortError') return mcpErrors.cancelled()
    const message = error instanceof Error ? error.message : String(error)
    if (/exceeds \d+ bytes/.test(message)) return mcpErrors.upstreamTooLarge(this.server, this.maxResponseBytes())
    return mcpErrors.upstreamFailed(this.server, message.slice(0, 300))
  }

  private maxResponseBytes(): number {
    return this.config.max_response_bytes ?? this.options.maxResponseBytes
  }

  /** The connected client, waiting briefly for a connect in progress. */
  private async readyClient(): Promise<Client | undefined> {
    if (this.state === 'ready' && this.client) return this.client
    if (this.state === 'stopped') return undefined
    const connecting = this.ensureConnected()
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([connecting, new Promise<void>((resolve) => (timer = setTimeout(resolve, WAIT_FOR_CONNECT_MS)))])
    clearTimeout(timer)
    return this.state === 'ready' ? this.client : undefined
  }

  private ensureConnected(): Promise<void> {
    if (this.state === 'stopped') return Promise.resolve()
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  private async connect(): Promise<void> {
    clearTimeout(this.retryTimer)
    this.setState('connecting')
    try {
      const { client, transport } = await this.openClient()
      const { StreamableHTTPClientTransport } = await loadMcpSdk()
      if ((this.state as UpstreamState) === 'stopped') {
        await client.close().catch(() => {})
        return
      }
      this.client = client
      this.transport = transport
      const authProvider = this.options.authProvider
      this.http =
        transport instanceof StreamableHTTPClientTransport && !isStdioServer(this.config)
          ? new StreamableHttpCaller({
              url: this.config.url,
              headers: this.config.headers,
              sessionId: transport.sessionId,
              protocolVersion: transport.protocolVersion,
              maxResponseBytes: this.maxResponseBytes(),
              onNotification: (method) => {
                if (method.endsWith('/list_changed')) void this.refreshLists()
              },
              accessToken: authProvider ? async () => (await authProvider.tokens())?.access_token : undefined,
            })
          : undefined
      if (this.connectedOnce) this.reconnects++
      this.connectedOnce = true
      this.readyAt = Date.now()
      this.lastError = null
      this.needsAuthorization = false
      await this.refreshLists()
      this.setState('ready')
      this.options.log.info({ mcp_server: this.server, transport: this.transportKind, tools: this.lists.tools.length }, 'MCP server connected')
    } catch (error) {
      this.failures++
      this.lastError = describe(error)
      this.setState('down')
      this.needsAuthorization = isAuthorizationFailure(error)
      if (this.needsAuthorization) {
        this.options.log.info({ mcp_server: this.server, owner: this.options.label }, 'MCP server wants the caller to authorize')
        return
      }
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.failures - 1, 10))
      this.options.log.warn({ mcp_server: this.server, err: this.lastError, retry_in_ms: delay }, 'MCP server could not be connected')
      this.retryTimer = setTimeout(() => void this.ensureConnected(), delay)
      this.retryTimer.unref?.()
    }
  }

  private async openClient(): Promise<{ client: Client; transport: Transport }> {
    const config = this.config
    const { StreamableHTTPClientTransport, SSEClientTransport } = await loadMcpSdk()
    if (isStdioServer(config)) return this.connectTransport(await this.stdioTransport(config))
    const url = new URL(config.url)
    const init: RequestInit = { headers: config.headers }
    const fetchBounded = boundedFetch(this.maxResponseBytes())
    const streamable = () =>
      new StreamableHTTPClientTransport(url, {
        requestInit: init,
        fetch: fetchBounded,
        authProvider: this.options.authProvider,
        // Reconnecting is this class's job (it also refreshes the lists); the SDK's own GET-stream retries would race it.
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
      })
    const sse = () =>
      new SSEClientTransport(url, { requestInit: init, fetch: fetchBounded, authProvider: this.options.authProvider, eventSourceInit: { fetch: fetchBounded } as never })
    if (config.transport === 'sse') {
      this.transportKind = 'sse'
      return this.connectTransport(sse())
    }
    if (config.transport === 'streamable-http') return this.connectTransport(streamable())
    try {
      this.transportKind = 'streamable-http'
      return await this.connectTransport(streamable())
    } catch (error) {
      // The spec's fallback for servers of the 2024-11-05 revision: a 4xx to the initialize POST means HTTP+SSE.
      if (!isStreamableHttpError(error) || error.code === undefined || error.code < 400 || error.code >= 500 || error.code === 401) throw error
      this.transportKind = 'sse'
      return this.connectTransport(sse())
    }
  }

  private async stdioTransport(config: Extract<McpServerConfig, { command: string }>): Promise<StdioClientTransport> {
    const { StdioClientTransport } = await loadMcpSdk()
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      stderr: 'pipe',
      // One message may not exceed the answer limit (plus the JSON-RPC envelope): a larger one ends the process.
      maxBufferSize: this.maxResponseBytes() + 64 * 1024,
    } as ConstructorParameters<typeof StdioClientTransport>[0])
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of this.stderr.append(chunk)) this.options.log.info({ mcp_server: this.server, stderr: line }, 'MCP server stderr')
    })
    return transport
  }

  private async connectTransport(transport: Transport): Promise<{ client: Client; transport: Transport }> {
    const {
      Client,
      CreateMessageRequestSchema,
      ElicitRequestSchema,
      ErrorCode,
      McpError: SdkMcpError,
      ToolListChangedNotificationSchema,
      PromptListChangedNotificationSchema,
      ResourceListChangedNotificationSchema,
    } = await loadMcpSdk()
    const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES })
    // Requests that reach the SDK's client came on no call's stream (stdio, the old SSE transport, the GET
    // stream): there is no caller to ask.
    const notRelayed = (method: string) => () => {
      throw new SdkMcpError(ErrorCode.MethodNotFound, `The AI gateway relays ${method} only on the event stream of the call it is about (Streamable HTTP).`)
    }
    client.setRequestHandler(CreateMessageRequestSchema, notRelayed('sampling/createMessage'))
    client.setRequestHandler(ElicitRequestSchema, notRelayed('elicitation/create'))
    client.onclose = () => this.lost(client, this.transportKind === 'stdio' ? 'the process exited' : 'the connection closed')
    client.onerror = (error) => this.options.log.debug({ mcp_server: this.server, err: describe(error) }, 'MCP transport error')
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshLists())
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void this.refreshLists())
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void this.refreshLists())
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS })
    } catch (error) {
      client.onclose = undefined
      await client.close().catch(() => {})
      throw error
    }
    return { client, transport }
  }

  /** The client's connection ended (or proved dead): reconnect, after a back-off when it keeps failing. */
  private lost(client: Client, why: string): void {
    if (this.client !== client || this.state === 'stopped') return
    this.client = undefined
    this.http = undefined
    client.onclose = undefined
    void client.close().catch(() => {})
    if (Date.now() - this.readyAt >= STABLE_AFTER_MS) this.failures = 0
    this.failures++
    this.lastError = why
    this.setState('down')
    const delay = this.failures <= 1 ? 0 : Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(this.failures - 2, 10))
    this.options.log.warn({ mcp_server: this.server, reason: why, reconnect_in_ms: delay }, 'MCP server connection lost')
    clearTimeout(this.retryTimer)
    this.retryTimer = setTimeout(() => void this.ensureConnected(), delay)
    this.retryTimer.unref?.()
  }

  private async checkHealth(): Promise<void> {
    const client = this.client
    if (this.state !== 'ready' || !client) return
    try {
      await client.ping({ timeout: PING_TIMEOUT_MS })
    } catch (error) {
      this.lost(client, `ping failed: ${describe(error)}`)
    }
  }

  /** Fetches every list the server offers; one refresh at a time (a notification during one queues another). */
  private refreshLists(): Promise<void> {
    const run = async () => {
      const client = this.client
      if (!client) return
      const capabilities = (client.getServerCapabilities() ?? {}) as Record<string, unknown>
      const next: UpstreamLists = {
        tools: capabilities.tools ? await listAll(client, 'tools/list', 'tools') : [],
        prompts: capabilities.prompts ? await listAll(client, 'prompts/list', 'prompts') : [],
        resources: capabilities.resources ? await listAll(client, 'resources/list', 'resources') : [],
        resourceTemplates: capabilities.resources ? await listAll(client, 'resources/templates/list', 'resourceTemplates') : [],
      }
      this.listsFetchedAt = Date.now()
      const changed = JSON.stringify(next) !== JSON.stringify(this.lists)
      this.lists = next
      if (changed) this.options.onListsChanged()
    }
    const previous = this.refreshing ?? Promise.resolve()
    const current = previous
      .then(run)
      .catch((error) => {
        this.options.log.warn({ mcp_server: this.server, err: describe(error) }, 'MCP server lists could not be fetched')
      })
      .finally(() => {
        if (this.refreshing === current) this.refreshing = undefined
      })
    this.refreshing = current
    return current
  }

  private setState(state: UpstreamState): void {
    if (this.state === 'stopped') return
    if (state !== this.state) this.since = Date.now()
    this.state = state
  }
}

async function listAll(client: Client, method: string, field: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = []
  let cursor: string | undefined
  for (let page = 0; page < LIST_PAGE_LIMIT; page++) {
    const result = (await client.request({ method, params: cursor ? { cursor } : {} } as never, LOOSE_RESULT, { timeout: CONNECT_TIMEOUT_MS })) as Record<string, unknown>
    const got = result[field]
    if (Array.isArray(got)) for (const item of got) if (item && typeof item === 'object' && items.length < LIST_ITEM_LIMIT) items.push(item as Record<string, unknown>)
    cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined
    if (!cursor || items.length >= LIST_ITEM_LIMIT) break
  }
  return items
}

function isAuthorizationFailure(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause
  if (error instanceof AuthorizationRequired || cause instanceof AuthorizationRequired) return true
  const UnauthorizedError = loadedMcpSdk()?.UnauthorizedError
  return UnauthorizedError !== undefined && (error instanceof UnauthorizedError || cause instanceof UnauthorizedError)
}

function isStreamableHttpError(error: unknown): error is { code: number | undefined } {
  const StreamableHTTPError = loadedMcpSdk()?.StreamableHTTPError
  return StreamableHTTPError !== undefined && error instanceof StreamableHTTPError
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.slice(0, 500)
}
