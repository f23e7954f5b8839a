/**
 * @module Reading and comparing credentials: the presented key from `Authorization: Bearer` or `x-api-key`, and
 * a constant-time comparison that does not leak the secret's length or content through timing.
 */
import { timingSafeEqual } from 'node:crypto'

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

/** Compares SHA-256 digests, so both sides have the same length whatever was presented. */
export function constantTimeEquals(presented: string, expected: string): boolean {
  const a = new Bun.CryptoHasher('sha256').update(presented).digest()
  const b = new Bun.CryptoHasher('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}
