/**
 * @module Header hygiene in one place: which upstream headers reach the client, and how headers are redacted
 * before they are logged or stored.
 */

/** Upstream response headers worth passing on; everything else (cookies, hop-by-hop, encodings) stays behind. */
const FORWARDED_RESPONSE_HEADERS = new Set([
  'content-type',
  'cache-control',
  'retry-after',
  'retry-after-ms',
  'openai-processing-ms',
  'openai-version',
])
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

const SENSITIVE_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie|x-auth-token|x-access-token|x-gateway-key|x-amz-security-token)$|secret|token|password|credential/i

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
  for (const key in out) if (isSensitiveHeader(key)) out[key] = REDACTED
  return out
}
