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
    if (FORWARDED_RESPONSE_HEADERS.has(key) || FORWARDED_PREFIXES.some((p) => key.startsWith(p))) out.set(key, value)
  })
  const upstreamId = upstream.get('x-request-id')
  if (upstreamId) out.set('x-upstream-request-id', upstreamId)
  out.set('x-request-id', requestId)
  return out
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
