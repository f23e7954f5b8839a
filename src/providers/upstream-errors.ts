/**
 * @module Turns an upstream's error answer into a GatewayError that keeps the upstream's meaning (429 stays
 * 429 with its Retry-After, 5xx stays 5xx), names the provider, and never carries the provider credential.
 */
import { scrubCredentialShapes } from '../pipeline/headers.ts'
import { GatewayError, type GatewayErrorType } from '../errors/gateway-error.ts'

export interface UpstreamErrorFields {
  message: string
  code: string | null
  param: string | null
}

/** Best-effort read of `{"error":{message,code,param}}`, `{"message"}`, `{"error":"text"}` and plain text. */
export function readUpstreamErrorFields(body: unknown, text: string, status: number): UpstreamErrorFields {
  const root = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const inner = Array.isArray(root) ? root[0] : root
  const err = (inner as Record<string, unknown>)?.error ?? inner
  if (typeof err === 'string') return { message: err, code: null, param: null }
  const e = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>
  const message = (typeof e.message === 'string' && e.message) || (typeof root.message === 'string' && root.message) || (text.trim() ? text.trim().slice(0, 500) : `HTTP ${status}`)
  const code = typeof e.code === 'string' ? e.code : typeof e.code === 'number' ? String(e.code) : typeof e.status === 'string' ? e.status : null
  return { message, code, param: typeof e.param === 'string' ? e.param : null }
}

/** Anything that looks like an API key or bearer token, plus the exact configured secrets. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]')
  return scrubCredentialShapes(out)
}

/** Longest upstream error message passed on to the client (the rest of a huge message is cut). */
const MAX_ERROR_MESSAGE = 2000

const PASS_THROUGH_HEADERS = ['retry-after', 'retry-after-ms']

export function upstreamError(args: { provider: string; status: number; body: unknown; text: string; headers: Headers; secrets: readonly string[] }): GatewayError {
  const { provider, status } = args
  const fields = readUpstreamErrorFields(args.body, args.text, status)
  const message = scrubSecrets(fields.message.length > MAX_ERROR_MESSAGE ? `${fields.message.slice(0, MAX_ERROR_MESSAGE)}…` : fields.message, args.secrets)
  const headers: Record<string, string> = {}
  for (const h of PASS_THROUGH_HEADERS) {
    const v = args.headers.get(h)
    if (v) headers[h] = v
  }
  const { clientStatus, type, prefix } = classify(status)
  return new GatewayError({
    status: clientStatus,
    type,
    message: prefix ? `${prefix} (provider '${provider}', HTTP ${status}): ${message}` : message,
    code: fields.code === null ? (clientStatus === 429 ? 'rate_limit_exceeded' : `upstream_http_${status}`) : scrubSecrets(fields.code, args.secrets),
    param: fields.param === null ? null : scrubSecrets(fields.param, args.secrets),
    provider,
    headers,
    upstreamBody: args.body ?? args.text,
  })
}

function classify(status: number): { clientStatus: number; type: GatewayErrorType; prefix?: string } {
  if (status === 429) return { clientStatus: 429, type: 'rate_limit_error' }
  if (status === 404) return { clientStatus: 404, type: 'not_found_error' }
  // The gateway's own provider credentials were refused: the client cannot fix that, so it is not a 401 for them.
  if (status === 401 || status === 403) return { clientStatus: 502, type: 'provider_error', prefix: 'The provider rejected the gateway credentials' }
  if (status === 408) return { clientStatus: 504, type: 'provider_error' }
  if (status >= 400 && status < 500) return { clientStatus: status, type: 'invalid_request_error' }
  if (status >= 500 && status <= 504) return { clientStatus: status, type: 'provider_error' }
  return { clientStatus: 502, type: 'provider_error', prefix: 'Unexpected upstream answer' }
}

export const upstreamFailures = {
  unreachable: (provider: string, detail: string) =>
    new GatewayError({ status: 502, type: 'provider_error', provider, code: 'provider_unreachable', message: `Could not reach provider '${provider}': ${detail}` }),
  timeout: (provider: string, what: string) =>
    new GatewayError({ status: 504, type: 'provider_error', provider, code: 'upstream_timeout', message: `Provider '${provider}' timed out: ${what}.` }),
  interrupted: (provider: string, detail: string) =>
    new GatewayError({ status: 502, type: 'provider_error', provider, code: 'stream_interrupted', message: `The stream from provider '${provider}' broke off: ${detail}` }),
  tooLarge: (provider: string, limitBytes: number) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'upstream_response_too_large',
      message: `The answer of provider '${provider}' exceeds the limit of ${limitBytes} bytes.`,
    }),
  unreadable: (provider: string, detail: string) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'upstream_invalid_response',
      message: `Provider '${provider}' sent an answer that is not valid JSON: ${detail}`,
    }),
  /** A body that passed as JSON on the wire but not to the adapter's reader (kept apart from `unreadable` for its code). */
  notJson: (provider: string) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'invalid_upstream_response',
      message: `Provider '${provider}' answered with a body that is not JSON.`,
    }),
  /** JSON, but not the answer the adapter's API has (an embeddings answer without a vector per input). */
  unexpectedShape: (provider: string, detail: string) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'upstream_invalid_response',
      message: `Provider '${provider}' sent an answer in an unexpected shape: ${detail}`,
    }),
  brokenStream: (provider: string, detail: string) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'upstream_invalid_stream',
      message: `The stream from provider '${provider}' is not valid server-sent events: ${detail}`,
    }),
  /**
   * Upstream calls never follow redirects (a followed cross-origin redirect re-sends the prompt, and with Bun every
   * credential header but Authorization, to wherever the Location points): the base URL is wrong or was taken over.
   */
  redirected: (provider: string, status: number) =>
    new GatewayError({
      status: 502,
      type: 'provider_error',
      provider,
      code: 'upstream_redirect',
      message: `Provider '${provider}' answered with a redirect (HTTP ${status}), which the gateway does not follow; check the provider's base URL.`,
    }),
  clientClosed: () =>
    new GatewayError({ status: 499, type: 'invalid_request_error', code: 'client_closed_request', message: 'The client closed the request before the answer was complete.' }),
}
