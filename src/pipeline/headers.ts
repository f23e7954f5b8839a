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

/**
 * Header names that carry credentials: the usual ones, anything naming an authorization (`X-Forwarded-Authorization`,
 * `X-Original-Authorization`), an API key (`apikey`, `api_key`, `x-goog-api-key`), any `x-…-key`, and anything
 * naming a secret, token, password or credential; and session ids that stand in for a credential (MCP's
 * `Mcp-Session-Id`, useless without the key, but a handle on someone's session all the same).
 */
const SENSITIVE_HEADER = /^(cookie|set-cookie|mcp-session-id)$|authorization|api[-_]?key|^x-.+-key$|secret|token|passw(or)?d|credential/i

export const REDACTED = '[REDACTED]'

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE_HEADER.test(name)
}

/**
 * Headers as a plain object with credentials replaced; safe for logs and audit entries. A value is replaced when the
 * name says it is a credential, when it contains one of `knownSecrets` (the master key, provider keys), or when it
 * looks like a credential whatever the name. Bun's native `toJSON` builds the object in one call (it lists
 * `set-cookie` as an array, which is redacted to one string anyway).
 */
export function redactHeaders(headers: Headers, knownSecrets: readonly string[] = []): Record<string, string> {
  const out = headers.toJSON() as Record<string, string>
  for (const key in out) {
    const value = out[key]!
    if (isSensitiveHeader(key) || looksLikeCredential(value) || containsKnownSecret(value, knownSecrets)) out[key] = REDACTED
  }
  return out
}

/** Shorter "secrets" would match ordinary text (a configured placeholder such as `none`). */
const MIN_KNOWN_SECRET_LENGTH = 8

function containsKnownSecret(value: string, knownSecrets: readonly string[]): boolean {
  for (const secret of knownSecrets) if (secret.length >= MIN_KNOWN_SECRET_LENGTH && value.includes(secret)) return true
  return false
}

/**
 * API-key shapes of the common providers and of gateway keys (`sk-gw-…`), AWS access key ids (`AKIA…`, `ASIA…`),
 * and JSON Web Tokens.
 */
export const CREDENTIAL_SHAPE =
  /\b(sk|pk|rk|gsk|xai|AIza)[-_A-Za-z0-9]{6,}[*A-Za-z0-9_-]*|\b(AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b|(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g
const BEARER_VALUE = /(Bearer\s+)\S+/gi
/** `Basic` and base64; counted as a credential when it decodes to `user:password` (not "Basic tier"). */
const BASIC_VALUE = /(Basic\s+)([A-Za-z0-9+/]{4,}={0,2})/gi

function isBasicCredential(encoded: string): boolean {
  try {
    return atob(encoded).includes(':')
  } catch {
    return false
  }
}

export function looksLikeCredential(value: string): boolean {
  CREDENTIAL_SHAPE.lastIndex = 0
  BEARER_VALUE.lastIndex = 0
  if (CREDENTIAL_SHAPE.test(value) || BEARER_VALUE.test(value)) return true
  for (const match of value.matchAll(BASIC_VALUE)) if (isBasicCredential(match[2]!)) return true
  return false
}

/** `text` with credential-shaped substrings replaced. */
export function scrubCredentialShapes(text: string): string {
  return text
    .replace(CREDENTIAL_SHAPE, REDACTED)
    .replace(BEARER_VALUE, `$1${REDACTED}`)
    .replace(BASIC_VALUE, (match, scheme: string, encoded: string) => (isBasicCredential(encoded) ? `${scheme}${REDACTED}` : match))
}
