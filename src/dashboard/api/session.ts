/**
 * @module Signing in and out: the key is checked with POST /admin/session, kept in this tab's sessionStorage, and
 * checked again (GET /admin/whoami, which writes no sign-in entry) when the page is reloaded.
 *
 * Why sessionStorage: a script running in the page could read the key from memory as easily as from any storage,
 * so that threat is the Content-Security-Policy's to stop (no script but the dashboard's own). What storage changes
 * is how long and where the key lingers: localStorage kept it on disk for good, in every tab, after the browser
 * closed. sessionStorage keeps it for this tab only and drops it when the tab closes, while a reload does not sign
 * the operator out.
 *
 * Signed in through the identity provider (docs/sso.md) there is no key in the page at all: the session is an
 * HttpOnly cookie the page cannot read, and GET /auth/oidc/session tells who is signed in and the CSRF token that
 * state-changing calls carry.
 */
import { z } from 'zod'
import { type ApiError, type Credential, errorOf, parseAnswer, requestAdmin } from './admin-client.ts'
import { principalSchema, type Principal } from './schemas.ts'

const STORAGE_KEY = 'ai-gateway.dashboard.key'
const storedKey = z.string().min(1)

export interface Session {
  credential: Credential
  principal: Principal
}

export const SSO_LOGIN = '/auth/oidc/login'

/** What GET /auth/oidc/session says: a session, none (sign-in offered), none due to renewal, or SSO not configured. */
export type SsoState = { kind: 'signed-in'; session: Session } | { kind: 'available'; refresh: boolean } | { kind: 'off' }

const ssoSessionSchema = principalSchema.extend({ csrf_token: z.string().min(1) })

export async function ssoState(): Promise<SsoState> {
  const response = await requestAdmin({ csrf: '' }, 'GET', '/session', undefined, '/auth/oidc')
  if (response.status === 404) return { kind: 'off' }
  if (!response.ok) {
    const error = await errorOf(response)
    if (error.status === 401) return { kind: 'available', refresh: error.code === 'session_refresh_required' }
    throw error
  }
  const body = parseAnswer(ssoSessionSchema, await response.json(), '/auth/oidc/session')
  return { kind: 'signed-in', session: { credential: { csrf: body.csrf_token }, principal: body } }
}

/** Ends the SSO session; answers the provider's end-session URL when it has one. */
export async function ssoSignOut(csrf: string): Promise<string | undefined> {
  const response = await requestAdmin({ csrf }, 'POST', '/logout', undefined, '/auth/oidc')
  if (!response.ok) return undefined
  const body = (await response.json().catch(() => ({}))) as { end_session_url?: unknown }
  return typeof body.end_session_url === 'string' ? body.end_session_url : undefined
}

export function storedSessionKey(): string | undefined {
  // Earlier versions kept the key in localStorage: it does not stay there.
  localStorage.removeItem(STORAGE_KEY)
  const parsed = storedKey.safeParse(sessionStorage.getItem(STORAGE_KEY))
  return parsed.success ? parsed.data : undefined
}

export function forgetSessionKey(): void {
  sessionStorage.removeItem(STORAGE_KEY)
}

/** What the sign-in form says for a refused key. */
export function signInProblem(error: ApiError): string {
  if (error.status === 401 && error.code !== 'admin_disabled' && error.code !== 'auth_throttled') return 'That key is not valid.'
  if (error.status === 403) return 'This key has no dashboard access.'
  return error.message
}

export async function signIn(key: string): Promise<Session> {
  const principal = await check(key, 'POST', '/session')
  sessionStorage.setItem(STORAGE_KEY, key)
  return { credential: { key }, principal }
}

export async function resumeSession(key: string): Promise<Session> {
  return { credential: { key }, principal: await check(key, 'GET', '/whoami') }
}

async function check(key: string, method: string, path: string): Promise<Principal> {
  const response = await requestAdmin({ key }, method, path)
  if (!response.ok) throw await errorOf(response)
  return parseAnswer(principalSchema, await response.json(), path)
}
