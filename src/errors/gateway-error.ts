/**
 * @module The one error shape every client sees: `{"error": GatewayError}` with all six fields, so the official
 * SDKs raise the right exception class (they map on the HTTP status and read `body.error`).
 */
import type { z } from 'zod'

export const GATEWAY_ERROR_TYPES = ['provider_error', 'rate_limit_error', 'invalid_request_error', 'authentication_error', 'not_found_error'] as const
export type GatewayErrorType = (typeof GATEWAY_ERROR_TYPES)[number]

export interface GatewayErrorBody {
  type: GatewayErrorType
  message: string
  code: string | null
  param: string | null
  /** Upstream provider involved; empty when the gateway itself raised the error. */
  provider: string
  status_code: number
}

export interface GatewayErrorInit {
  status: number
  type: GatewayErrorType
  message: string
  code?: string | null
  param?: string | null
  provider?: string
  /** Extra response headers, e.g. `retry-after` on 429. */
  headers?: Record<string, string>
  /** Raw upstream error body, kept for the audit entry, never sent to the client. */
  upstreamBody?: unknown
}

export class GatewayError extends Error {
  readonly status: number
  readonly type: GatewayErrorType
  readonly code: string | null
  readonly param: string | null
  readonly provider: string
  readonly headers: Record<string, string>
  readonly upstreamBody: unknown

  constructor(init: GatewayErrorInit) {
    super(init.message)
    this.name = 'GatewayError'
    this.status = init.status
    this.type = init.type
    this.code = init.code ?? null
    this.param = init.param ?? null
    this.provider = init.provider ?? ''
    this.headers = init.headers ?? {}
    this.upstreamBody = init.upstreamBody
  }

  toBody(): GatewayErrorBody {
    return {
      type: this.type,
      message: this.message,
      code: this.code,
      param: this.param,
      provider: this.provider,
      status_code: this.status,
    }
  }

  toJSON(): { error: GatewayErrorBody } {
    return { error: this.toBody() }
  }
}

/** Builders for the errors the gateway raises itself; names say when to use them. */
export interface FromZodOptions {
  /** The error code; `invalid_request` unless given. */
  code?: string
  /** Names the input when the problem has no field path (e.g. `body`, `query`). */
  subject?: string
  /** Path segments in front of the issue's own path (e.g. `plugins.<id>` for a plugin's settings). */
  prefix?: readonly string[]
  /** `param` names the top-level field only (e.g. `allowed_models`, not `allowed_models.0`). */
  topLevel?: boolean
}

export const gatewayErrors = {
  /**
   * The first problem of a failed zod parse as a 400 naming the field: `param` is its dotted path, the message
   * `<param>: <problem>`. An unknown field at the top level is named by itself; deeper, by the object that holds it.
   */
  fromZod(error: z.ZodError, { code = 'invalid_request', subject, prefix = [], topLevel = false }: FromZodOptions = {}): GatewayError {
    const issue = error.issues[0]!
    const path = [...prefix, ...issue.path.map(String)]
    if (issue.code === 'unrecognized_keys' && path.length === 0) {
      return new GatewayError({ status: 400, type: 'invalid_request_error', message: `Unknown field '${issue.keys[0]}'.`, param: issue.keys[0] ?? null, code })
    }
    const param = path.length === 0 ? null : topLevel ? path[0]! : path.join('.')
    const message = param ? `${param}: ${issue.message}` : subject ? `${subject}: ${issue.message}` : issue.message
    return new GatewayError({ status: 400, type: 'invalid_request_error', message, param, code })
  },
  invalidRequest: (message: string, param: string | null = null, code: string | null = 'invalid_request') =>
    new GatewayError({ status: 400, type: 'invalid_request_error', message, param, code }),
  invalidJson: (detail: string) =>
    new GatewayError({
      status: 400,
      type: 'invalid_request_error',
      message: `Request body is not valid JSON: ${detail}`,
      code: 'invalid_json',
    }),
  bodyTooLarge: (limitBytes: number) =>
    new GatewayError({
      status: 413,
      type: 'invalid_request_error',
      message: `Request body exceeds the limit of ${limitBytes} bytes.`,
      code: 'request_too_large',
    }),
  bodyTimeout: (seconds: number) =>
    new GatewayError({
      status: 408,
      type: 'invalid_request_error',
      message: `The request body did not arrive within ${seconds} seconds.`,
      code: 'request_body_timeout',
    }),
  unauthenticated: () =>
    new GatewayError({
      status: 401,
      type: 'authentication_error',
      message: 'Invalid or missing API key. Send it as "Authorization: Bearer <key>" or as "x-api-key: <key>".',
      code: 'invalid_api_key',
    }),
  /** The key of a running stream was revoked: the stream ends at its next chunk with this error frame. */
  keyRevokedMidStream: () =>
    new GatewayError({
      status: 401,
      type: 'authentication_error',
      message: 'The API key was revoked while this stream was running; the stream was ended.',
      code: 'api_key_revoked',
    }),
  /**
   * The caller's address made too many failed attempts, so its credential was not checked. A 401, not a 429: a
   * rejected key is a 401 (the service description), and the official SDKs retry a 429 but not a 401.
   */
  authThrottled: (retryAfterSeconds: number) =>
    new GatewayError({
      status: 401,
      type: 'authentication_error',
      message: `Too many failed authentication attempts from this address: credentials from it are not checked for ${retryAfterSeconds} s.`,
      code: 'auth_throttled',
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  /** A JSON endpoint received a body that does not say `Content-Type: application/json`. */
  unsupportedMediaType: (received: string | null) =>
    new GatewayError({
      status: 415,
      type: 'invalid_request_error',
      message:
        received === null
          ? 'The request has a body but no Content-Type; send it as Content-Type: application/json.'
          : `Content-Type '${received.slice(0, 100)}' is not accepted here; send the body as Content-Type: application/json.`,
      param: 'content-type',
      code: 'unsupported_media_type',
    }),
  forbidden: (message: string, code: string) => new GatewayError({ status: 403, type: 'authentication_error', message, code }),
  /** GATEWAY_REQUIRE_KEY_USER_PATH: a managed key without a bound user path may not call (it could claim any path). */
  keyUserPathRequired: () =>
    new GatewayError({
      status: 403,
      type: 'authentication_error',
      message: 'This API key is not bound to a user path, and this gateway requires one (GATEWAY_REQUIRE_KEY_USER_PATH).',
      code: 'key_user_path_required',
    }),
  /** A provider's error answer that the pass-through sent on as it came: recorded as the request's error. */
  passedThrough: (status: number, provider: string) =>
    new GatewayError({
      status,
      type: status === 429 ? 'rate_limit_error' : 'provider_error',
      provider,
      code: `upstream_http_${status}`,
      message: `The provider answered HTTP ${status}; its answer was passed through to the client unchanged.`,
    }),
  modelNotFound: (model: string, hint = '') =>
    new GatewayError({
      status: 404,
      type: 'not_found_error',
      message: `The model '${model}' does not exist on this gateway${hint}. GET /v1/models lists the models you can use.`,
      param: 'model',
      code: 'model_not_found',
    }),
  routeNotFound: (method: string, path: string) =>
    new GatewayError({
      status: 404,
      type: 'not_found_error',
      message: `Unknown route: ${method} ${path}. The OpenAI-compatible API lives under /v1 (see /openapi/json).`,
      code: 'route_not_found',
    }),
  methodNotAllowed: (method: string, path: string) =>
    new GatewayError({
      status: 405,
      type: 'invalid_request_error',
      message: `Method ${method} is not allowed on ${path}.`,
      code: 'method_not_allowed',
    }),
  internal: (message = 'The gateway failed to handle this request.') => new GatewayError({ status: 500, type: 'provider_error', message, code: 'internal_error' }),
  shuttingDown: () =>
    new GatewayError({
      status: 503,
      type: 'provider_error',
      message: 'The gateway is shutting down and ended this request at its drain deadline; retry it.',
      code: 'gateway_shutting_down',
    }),
  unavailable: (message: string, code = 'service_unavailable') => new GatewayError({ status: 503, type: 'provider_error', message, code }),
}

/** Anything thrown becomes a GatewayError; unknown throwables are bugs and become a 500 without details. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error
  return gatewayErrors.internal()
}

export function errorResponse(error: GatewayError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { 'content-type': 'application/json', ...error.headers, ...headers },
  })
}
