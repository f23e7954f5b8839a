/**
 * @module Signing in and out: the key is checked with POST /admin/session, kept in this tab's sessionStorage, and
 * checked again (GET /admin/whoami, which writes no sign-in entry) when the page is reloaded.
 *
 * Why sessionStorage: a script running in the page could read the key from memory as easily as from any storage,
 * so that threat is the Content-Security-Policy's to stop (no script but the dashboard's own). What storage changes
 * is how long and where the key lingers: localStorage kept it on disk for good, in every tab, after the browser
 * closed. sessionStorage keeps it for this tab only and drops it when the tab closes, while a reload does not sign
 * the operator out. A server-side session in an HttpOnly cookie (issue 31) will take the key out of the page.
 */
import { z } from 'zod'
import { ApiError, errorOf, parseAnswer, requestAdmin } from './admin-client.ts'
import { principalSchema, type Principal } from './schemas.ts'

const STORAGE_KEY = 'ai-gateway.dashboard.key'
const storedKey = z.string().min(1)

export interface Session {
  key: string
  principal: Principal
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
  return { key, principal }
}

export async function resumeSession(key: string): Promise<Session> {
  return { key, principal: await check(key, 'GET', '/whoami') }
}

async function check(key: string, method: string, path: string): Promise<Principal> {
  const response = await requestAdmin(key, method, path)
  if (!response.ok) throw await errorOf(response)
  return parseAnswer(principalSchema, await response.json(), path)
}
