/**
 * @module Signing in and out: the key is checked with POST /admin/session, kept in localStorage, and checked
 * again (GET /admin/whoami, which writes no sign-in entry) when the page is opened later.
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
  const parsed = storedKey.safeParse(localStorage.getItem(STORAGE_KEY))
  return parsed.success ? parsed.data : undefined
}

export function forgetSessionKey(): void {
  localStorage.removeItem(STORAGE_KEY)
}

/** What the sign-in form says for a refused key. */
export function signInProblem(error: ApiError): string {
  if (error.status === 401 && error.code !== 'admin_disabled') return 'That key is not valid.'
  if (error.status === 403) return 'This key has no dashboard access.'
  return error.message
}

export async function signIn(key: string): Promise<Session> {
  const principal = await check(key, 'POST', '/session')
  localStorage.setItem(STORAGE_KEY, key)
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
