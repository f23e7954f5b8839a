/**
 * @module Errors of the MCP endpoints in the protocol's own shape, as /v1/messages answers in Anthropic's: a
 * JSON-RPC error object whose `data` carries the gateway's error fields (`type`, `code`, `status_code`, `param`).
 * A problem with the HTTP exchange itself (no key, no session, too large a body) is answered with that status
 * and `id: null`; a problem with one request (an unknown or hidden tool, a limit, an upstream failure) is answered
 * as that request's JSON-RPC error. The audit entry records `status_code` either way.
 */
import { GatewayError, type GatewayErrorType } from '../errors/gateway-error.ts'

/** JSON-RPC and MCP error codes (the MCP spec and the SDK's `ErrorCode`). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server errors: the gateway's own refusals and upstream failures. */
  serverError: -32000,
  requestTimeout: -32001,
  urlElicitationRequired: -32042,
} as const

export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export class McpRequestError extends GatewayError {
  readonly rpcCode: number
  /** An upstream server's own `data`, passed on as it came. */
  readonly upstreamData: unknown
  /** Fields the error's kind defines in `data` (a URL elicitation's `elicitations`). */
  readonly extraData: Record<string, unknown> | undefined

  constructor(init: {
    status: number
    type: GatewayErrorType
    code: string
    message: string
    rpcCode: number
    param?: string
    provider?: string
    headers?: Record<string, string>
    upstreamData?: unknown
    extraData?: Record<string, unknown>
  }) {
    super(init)
    this.name = 'McpRequestError'
    this.rpcCode = init.rpcCode
    this.upstreamData = init.upstreamData
    this.extraData = init.extraData
  }

  toRpcError(): RpcErrorObject {
    const data: Record<string, unknown> = { ...this.extraData, type: this.type, code: this.code, status_code: this.status }
    if (this.param) data.param = this.param
    if (this.provider) data.server = this.provider
    if (this.upstreamData !== undefined) data.upstream = this.upstreamData
    return { code: this.rpcCode, message: this.message, data }
  }
}

export const mcpErrors = {
  parse: (detail: string) =>
    new McpRequestError({ status: 400, type: 'invalid_request_error', code: 'invalid_json', rpcCode: RPC.parseError, message: `Request body is not valid JSON: ${detail}` }),
  invalidMessage: (message: string) => new McpRequestError({ status: 400, type: 'invalid_request_error', code: 'invalid_jsonrpc', rpcCode: RPC.invalidRequest, message }),
  invalidParams: (message: string, param?: string) =>
    new McpRequestError({ status: 400, type: 'invalid_request_error', code: 'invalid_params', rpcCode: RPC.invalidParams, message, param }),
  methodNotFound: (method: string) =>
    new McpRequestError({ status: 404, type: 'not_found_error', code: 'method_not_found', rpcCode: RPC.methodNotFound, message: `Method not found: ${method}` }),
  /** The same answer for a tool that does not exist and one the caller may not see: hidden tools are not revealed. */
  unknownTool: (name: string) =>
    new McpRequestError({ status: 404, type: 'not_found_error', code: 'tool_not_found', rpcCode: RPC.invalidParams, param: 'name', message: `Unknown tool: ${name}` }),
  unknownPrompt: (name: string) =>
    new McpRequestError({ status: 404, type: 'not_found_error', code: 'prompt_not_found', rpcCode: RPC.invalidParams, param: 'name', message: `Unknown prompt: ${name}` }),
  unknownResource: (uri: string) =>
    new McpRequestError({ status: 404, type: 'not_found_error', code: 'resource_not_found', rpcCode: -32002, param: 'uri', message: `Resource not found: ${uri}` }),
  missingSession: () =>
    new McpRequestError({
      status: 400,
      type: 'invalid_request_error',
      code: 'mcp_session_required',
      rpcCode: RPC.serverError,
      message: 'Bad Request: send the Mcp-Session-Id header from the initialize response.',
    }),
  sessionNotFound: () =>
    new McpRequestError({
      status: 404,
      type: 'not_found_error',
      code: 'mcp_session_not_found',
      rpcCode: RPC.serverError,
      message: 'Session not found or expired: start a new one with initialize.',
    }),
  unsupportedProtocolVersion: (version: string, supported: readonly string[]) =>
    new McpRequestError({
      status: 400,
      type: 'invalid_request_error',
      code: 'unsupported_protocol_version',
      rpcCode: RPC.serverError,
      param: 'MCP-Protocol-Version',
      message: `Unsupported MCP-Protocol-Version '${version.slice(0, 40)}'; supported: ${supported.join(', ')}.`,
    }),
  notAcceptable: () =>
    new McpRequestError({
      status: 406,
      type: 'invalid_request_error',
      code: 'not_acceptable',
      rpcCode: RPC.serverError,
      message: 'Not Acceptable: the client must accept application/json and text/event-stream.',
    }),
  unsupportedMediaType: () =>
    new McpRequestError({
      status: 415,
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
      rpcCode: RPC.serverError,
      message: 'Unsupported Media Type: send JSON-RPC as application/json.',
    }),
  originNotAllowed: (origin: string) =>
    new McpRequestError({
      status: 403,
      type: 'authentication_error',
      code: 'origin_not_allowed',
      rpcCode: RPC.serverError,
      message: `Forbidden: origin ${origin.slice(0, 100)} is not allowed (mcp.allowed_origins).`,
    }),
  unknownServer: (name: string) =>
    new McpRequestError({
      status: 404,
      type: 'not_found_error',
      code: 'mcp_server_not_found',
      rpcCode: RPC.serverError,
      message: `Unknown MCP server '${name.slice(0, 100)}'. GET /mcp aggregates every server you may use.`,
    }),
  batchNotSupported: () =>
    new McpRequestError({
      status: 400,
      type: 'invalid_request_error',
      code: 'jsonrpc_batch_not_supported',
      rpcCode: RPC.invalidRequest,
      message: 'JSON-RPC batches are not supported (removed in MCP 2025-06-18): send one message per request.',
    }),
  serverUnavailable: (server: string, why: string) =>
    new McpRequestError({
      status: 503,
      type: 'provider_error',
      code: 'mcp_server_unavailable',
      rpcCode: RPC.serverError,
      provider: server,
      message: `MCP server '${server}' is not available: ${why}`,
    }),
  upstreamFailed: (server: string, why: string) =>
    new McpRequestError({
      status: 502,
      type: 'provider_error',
      code: 'mcp_upstream_error',
      rpcCode: RPC.serverError,
      provider: server,
      message: `MCP server '${server}' failed: ${why}`,
    }),
  upstreamTimeout: (server: string, seconds: number) =>
    new McpRequestError({
      status: 504,
      type: 'provider_error',
      code: 'mcp_upstream_timeout',
      rpcCode: RPC.requestTimeout,
      provider: server,
      message: `MCP server '${server}' did not answer within ${seconds} s.`,
    }),
  upstreamTooLarge: (server: string, limit: number) =>
    new McpRequestError({
      status: 502,
      type: 'provider_error',
      code: 'mcp_upstream_response_too_large',
      rpcCode: RPC.serverError,
      provider: server,
      message: `MCP server '${server}' answered with more than ${limit} bytes.`,
    }),
  /** The upstream's own JSON-RPC error, passed on with its code, message and data. */
  fromUpstream: (server: string, code: number, message: string, data: unknown) =>
    new McpRequestError({ status: 502, type: 'provider_error', code: 'mcp_upstream_rpc_error', rpcCode: code, provider: server, message, upstreamData: data }),
  /** The owner has no (valid) credential at a per-user OAuth server; the gateway turns this into a link (./oauth/). */
  authorizationRequired: (server: string) =>
    new McpRequestError({
      status: 401,
      type: 'authentication_error',
      code: 'mcp_authorization_required',
      rpcCode: RPC.serverError,
      provider: server,
      message: `MCP server '${server}' needs you to connect your account.`,
    }),
  /** A client's error answer to a server's request relayed to it (`unsupported`: the gateway answered, the client cannot). */
  clientAnswered: (server: string, error: RpcErrorObject, unsupported: boolean) =>
    new McpRequestError({
      status: unsupported ? 404 : error.code === RPC.requestTimeout ? 504 : 400,
      type: unsupported ? 'not_found_error' : 'invalid_request_error',
      code: unsupported ? 'mcp_client_capability_missing' : 'mcp_client_error',
      rpcCode: error.code,
      provider: server,
      message: error.message.slice(0, 500),
    }),
  cancelled: () =>
    new McpRequestError({ status: 499, type: 'invalid_request_error', code: 'client_cancelled', rpcCode: RPC.serverError, message: 'The client cancelled the request.' }),
}

/** Any GatewayError in the MCP shape (a refusal built for /v1, such as a rate limit, keeps its fields). */
export function asMcpError(error: GatewayError): McpRequestError {
  if (error instanceof McpRequestError) return error
  return new McpRequestError({
    status: error.status,
    type: error.type,
    code: error.code ?? 'error',
    message: error.message,
    param: error.param ?? undefined,
    provider: error.provider,
    headers: error.headers,
    rpcCode: RPC.serverError,
  })
}
