/**
 * @module Header hygiene in one place: which upstream headers reach the client, and how headers are redacted
 * before they are logged or stored.
 */

/** Upstream response headers worth passing on; everything else (cookies, hop-by-hop, encodings) stays behind. */
const FORWARDED_RESPONSE_HEADERS = new Set(['content-type', 'cache-control', 'retry-after', 'retry-after-ms', 'openai-processing-ms', 'openai-version'])
const FORWARDED_PREFIXES = ['x-ratelimit-']

/**
 * Builds the client-facing headers from an upstream response. Bun's fetch decompresses bodies but keeps
 * `content-encoding`, and its `content-length` no longer matches, so neither is forwarded.
 */
export function clientHeadersFrom(upstream: Headers, requestId: string): Headers {
  const out = new Headers()
  upstream.forEach((value, key) => {
    if (isForwarded(key)) out.set(key, value)
  })
  return withRequestIds(out, upstream.get('x-request-id'), requestId)
}

/**
 * The same headers as `clientHeadersFrom`, made in place: for a Response made for this request alone (a marked
 * JSON answer, src/pipeline/json-answer.ts), whose headers are then the client's without a second Response.
 */
export function keepClientHeaders(headers: Headers, requestId: string): Headers {
  const upstreamId = headers.get('x-request-id')
  const dropped: string[] = []
  headers.forEach((_, key) => {
    if (!isForwarded(key)) dropped.push(key)
  })
  for (const key of dropped) headers.delete(key)
  return withRequestIds(headers, upstreamId, requestId)
}

function isForwarded(key: string): boolean {
  return FORWARDED_RESPONSE_HEADERS.has(key) || FORWARDED_PREFIXES.some((p) => key.startsWith(p))
}

function withRequestIds(headers: Headers, upstreamId: string | null, requestId: string): Headers {
  if (upstreamId) headers.set('x-upstream-request-id', upstreamId)
  headers.set('x-request-id', requestId)
  return headers
}

const SENSITIVE_HEADER =
  /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie|x-auth-token|x-access-token|x-gateway-key|x-amz-security-token)$|secret|token|password|credential/i

export const REDACTED = '[REDACTED]'

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE_HEADER.test(name)
}

/**
 * Headers as a plain object with credentials replaced; safe for logs and audit entries. Bun's native `toJSON`
 * builds the object in one call (it lists `set-cookie` as an array, which is redacted to one string anyway).
 */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out = headers.toJSON() as Record<string, string>
  // By name, and by value: a key sent in a header not on the list (X-Forwarded-Authorization, X-Upstream-Key…).
  for (const key in out) if (isSensitiveHeader(key) || looksLikeCredential(out[key]!)) out[key] = REDACTED
  return out
}

/** API-key shapes of the common providers and of gateway keys (`sk-gw-…`), and bearer credentials. */
export const CREDENTIAL_SHAPE = /\b(sk|pk|rk|gsk|xai|AIza)[-_A-Za-z0-9]{6,}[*A-Za-z0-9_-]*/g
const BEARER_VALUE = /(Bearer\s+)\S+/gi

export function looksLikeCredential(value: string): boolean {
  CREDENTIAL_SHAPE.lastIndex = 0
  BEARER_VALUE.lastIndex = 0
  return CREDENTIAL_SHAPE.test(value) || BEARER_VALUE.test(value)
}

/** `text` with credential-shaped substrings replaced. */
export function scrubCredentialShapes(text: string): string {
  return text.replace(CREDENTIAL_SHAPE, REDACTED).replace(BEARER_VALUE, `$1${REDACTED}`)
}
