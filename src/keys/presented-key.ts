/**
 * @module The key a caller presents: `Authorization: Bearer <key>` or `x-api-key` (Anthropic clients). Shared by
 * /v1 authentication, /admin authentication and the audit entry's key hash.
 */

export type PresentedKey = { kind: 'missing' } | { kind: 'malformed'; reason: string } | { kind: 'key'; key: string }

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

export function presentedKey(headers: Headers): PresentedKey {
  const authorization = headers.get('authorization')
  if (authorization !== null) {
    const match = BEARER.exec(authorization)
    if (!match) return { kind: 'malformed', reason: 'Authorization header is not "Bearer <key>"' }
    return { kind: 'key', key: match[1]! }
  }
  const apiKey = headers.get('x-api-key')
  if (apiKey !== null) {
    const key = apiKey.trim()
    if (!key || /\s/.test(key)) return { kind: 'malformed', reason: 'x-api-key header is empty or contains spaces' }
    return { kind: 'key', key }
  }
  return { kind: 'missing' }
}

/** Whether the request carries a key at all (a key decides over a session cookie). */
export const presentsCredential = (headers: Headers) => headers.has('authorization') || headers.has('x-api-key')
