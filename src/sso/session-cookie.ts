/**
 * @module The dashboard's SSO session, kept by the browser as a signed cookie (HMAC-SHA256 with the shared
 * `session_secret`): any replica can check it without a database read, and a signed-out session's id is kept
 * in the shared counters (Redis with replicas) until its absolute end, so sign-out holds on every replica.
 * The cookie says who signed in and with which grant; it carries no provider token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { AdminRole } from '../admin/roles.ts'

export const SESSION_COOKIE = 'gw_session'
/** Short-lived, for the round trip to the provider: state, nonce and the PKCE verifier. */
export const LOGIN_COOKIE = 'gw_oidc_login'

export interface SessionClaims {
  /** Session id: what sign-out revokes, and what the CSRF token is made from. */
  sid: string
  /** The provider's subject and the person's email, for the audit trail. */
  sub: string
  email: string | null
  role: AdminRole
  scope: string | null
  /** Sign-in (ms): the absolute timeout counts from here. */
  iat: number
  /** Last use (ms): the idle timeout counts from here. */
  seen: number
  /** When the role must be mapped again from a fresh sign-in (ms). */
  refresh: number
}

export class CookieSigner {
  private readonly key: Buffer

  constructor(secret: string, purpose: string) {
    // One secret, a key per purpose: a login cookie can never pass for a session cookie.
    this.key = createHmac('sha256', secret).update(`gateway-sso:${purpose}`).digest()
  }

  sign(value: unknown): string {
    const body = Buffer.from(JSON.stringify(value)).toString('base64url')
    return `${body}.${this.mac(body).toString('base64url')}`
  }

  /** The value, or undefined for a cookie that was not signed by this gateway (or was changed). */
  verify<T>(cookie: string): T | undefined {
    const dot = cookie.indexOf('.')
    if (dot <= 0 || cookie.length > 8192) return undefined
    const body = cookie.slice(0, dot)
    const given = Buffer.from(cookie.slice(dot + 1), 'base64url')
    const expected = this.mac(body)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T
    } catch {
      return undefined
    }
  }

  /** The CSRF token of a session: sent by the dashboard in `x-csrf-token` with every state-changing call. */
  csrfToken(sid: string): string {
    return this.mac(`csrf:${sid}`).toString('base64url')
  }

  private mac(text: string): Buffer {
    return createHmac('sha256', this.key).update(text).digest()
  }
}

export function readCookie(headers: Headers, name: string): string | undefined {
  const header = headers.get('cookie')
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function cookieHeader(name: string, value: string, options: { secure: boolean; maxAgeSeconds: number; path?: string; sameSite?: 'Lax' | 'Strict' }): string {
  const parts = [
    `${name}=${value}`,
    `Path=${options.path ?? '/'}`,
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Lax'}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
  ]
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}
