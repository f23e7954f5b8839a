/**
 * @module One audit entry per MCP request, in the same log and through the same writer as /v1 requests: `method`
 * is the JSON-RPC method (`tools/call`; or the HTTP method when the body was never read), `path` the endpoint
 * (`/mcp`, `/mcp/{server}`), `provider` is `mcp` and `provider_name` the server, `requested_model` the name the
 * client used and `resolved_model` the name on the server; `data.mcp` has the rest, `data.request_body` the
 * request's params (arguments redacted and bounded, always kept: they are what was done) and `data.response_body`
 * the result when bodies are logged. The session is the client's own (a session header, as on /v1, or the session its
 * agent names in `_meta` (Codex), so a tool call joins the model requests of the same agent session), else a digest
 * of the MCP session. The model's tool call id the client names in `_meta` (Claude Code's `claudecode/toolUseId`,
 * Codex's `callId`) is kept too: the model request whose answer asked for the call carries the same id.
 */
import { detectSessionId } from '../audit/session.ts'
import type { AuditLogEntry, LogData } from '../audit/entry.ts'
import { redactHeaders } from '../pipeline/headers.ts'
import type { Principal } from '../pipeline/context.ts'
import type { GatewayError } from '../errors/gateway-error.ts'

export interface McpExchange {
  id: string
  startedAt: Date
  startNs: number
  requestId: string
  headers: Headers
  path: string
  /** The JSON-RPC method, or the HTTP method when no message was read. */
  method: string
  clientIp: string
  principal?: Principal
  userPath?: string
  /** An authentication failure over the flood limit: counted, not stored. */
  suppressed?: boolean
  /** Precise reason of an authentication failure (never sent to the client). */
  authFailureReason?: string
  apiKeyHash?: string
  mcpSessionId?: string
  protocolVersion?: string
  jsonrpcId?: string | number
  server?: string
  exposedName?: string
  upstreamName?: string
  params?: unknown
  /** The JSON text of `params`, when it was made anyway (the audit log stores it instead of serialising them again). */
  paramsJson?: string
  /** The request's `_meta` as the client sent it (read for the session and the tool call id only). */
  meta?: Record<string, unknown>
  argumentBytes?: number
  result?: unknown
  /** The JSON text of `result`, as sent to the client. */
  resultJson?: string
  resultBytes?: number
  isError?: boolean
  items?: number
  priceUsd?: number
  stream?: boolean
  error?: GatewayError & { rpcCode?: number }
  status: number
  responseHeaders?: Headers
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/

/** W3C trace context: the `traceparent` header, or `_meta.traceparent` of the request (MCP's own carrier). */
export function traceIdOf(headers: Headers, params: unknown): string | undefined {
  const meta = (params as { _meta?: { traceparent?: unknown } } | undefined)?._meta
  const value = headers.get('traceparent') ?? (typeof meta?.traceparent === 'string' ? meta.traceparent : undefined)
  const match = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null
  return match && match[1] !== '0'.repeat(32) ? match[1] : undefined
}

const idLike = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 200 && /^[\x21-\x7e]+$/.test(v) ? v : undefined)

/** The agent session a client names in `_meta` (Codex: `sessionId`, or its turn metadata's `session_id`). */
export function metaSessionId(meta: Record<string, unknown> | undefined): string | undefined {
  if (!meta) return undefined
  const turn = meta['x-codex-turn-metadata'] as { session_id?: unknown } | undefined
  return idLike(meta.sessionId) ?? idLike(turn?.session_id)
}

/** The model's tool call a client names in `_meta`: Claude Code's `claudecode/toolUseId`, Codex's `callId`. */
export function metaToolCallId(meta: Record<string, unknown> | undefined): string | undefined {
  if (!meta) return undefined
  return idLike(meta['claudecode/toolUseId']) ?? idLike(meta.callId)
}

export function mcpSessionDigest(sessionId: string): string {
  return `mcp-${new Bun.CryptoHasher('sha256').update(sessionId).digest('hex').slice(0, 24)}`
}

export function mcpAuditEntry(x: McpExchange, capture: { bodies: boolean; headers: boolean }): AuditLogEntry {
  const data: LogData = {}
  if (x.apiKeyHash) data.api_key_hash = x.apiKeyHash
  const userAgent = x.headers.get('user-agent')
  if (userAgent) data.user_agent = userAgent
  if (x.error) {
    data.error_code = x.error.code ?? ''
    data.error_message = x.authFailureReason ? `${x.error.message} (${x.authFailureReason})` : x.error.message
    data.error_provider = x.error.provider
  }
  if (capture.headers) {
    data.request_headers = redactHeaders(x.headers)
    if (x.responseHeaders) data.response_headers = redactHeaders(x.responseHeaders)
  }
  if (x.params !== undefined) data.request_body = x.params
  if (capture.bodies && x.result !== undefined) data.response_body = x.result
  const traceId = traceIdOf(x.headers, x.params)
  if (traceId) data.trace_id = traceId
  const session = x.mcpSessionId ? mcpSessionDigest(x.mcpSessionId) : undefined
  // Assigned field by field: spreading a literal per optional field made a dozen objects per entry.
  const mcp: NonNullable<LogData['mcp']> = {}
  if (x.server) mcp.server = x.server
  if (x.upstreamName !== undefined) mcp.name = x.upstreamName
  if (x.jsonrpcId !== undefined) mcp.jsonrpc_id = x.jsonrpcId
  if (x.protocolVersion) mcp.protocol_version = x.protocolVersion
  if (session) mcp.mcp_session = session
  if (x.argumentBytes !== undefined) mcp.argument_bytes = x.argumentBytes
  if (x.resultBytes !== undefined) mcp.result_bytes = x.resultBytes
  if (x.isError !== undefined) mcp.is_error = x.isError
  if (x.error?.rpcCode !== undefined) mcp.rpc_error_code = x.error.rpcCode
  if (x.priceUsd) mcp.price_usd = x.priceUsd
  if (x.items !== undefined) mcp.items = x.items
  const toolCallId = metaToolCallId(x.meta)
  if (toolCallId) mcp.tool_call_id = toolCallId
  data.mcp = mcp
  return {
    id: x.id,
    timestamp: x.startedAt.toISOString(),
    duration_ns: Math.round(Bun.nanoseconds() - x.startNs),
    request_id: x.requestId,
    requested_model: x.exposedName ?? '',
    resolved_model: x.upstreamName ?? '',
    provider: 'mcp',
    provider_name: x.server ?? '',
    method: x.method,
    path: x.path,
    status_code: x.status,
    stream: x.stream ?? false,
    error_type: x.error?.type ?? '',
    session_id: detectSessionId(x.headers, undefined) ?? metaSessionId(x.meta) ?? session ?? '',
    user_path: x.userPath ?? '/',
    principal_id: x.principal?.id ?? '',
    auth_key_id: x.principal?.keyId ?? '',
    auth_method: x.principal?.method ?? 'none',
    client_ip: x.clientIp,
    cache_type: '',
    alias_used: false,
    workflow_version_id: '',
    data,
  }
}
