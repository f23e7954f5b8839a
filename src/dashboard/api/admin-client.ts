/**
 * @module The admin API as the dashboard calls it: every request carries `Authorization: Bearer <key>`, or, signed
 * in through the identity provider, the session cookie (the browser sends it) and on state-changing calls the
 * session's CSRF token; every answer is parsed with its schema, and every failure becomes an ApiError with the
 * GatewayError's fields.
 */
import type { z } from 'zod'
import { gatewayErrorSchema } from './schemas.ts'

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message)
  }
}

/** How the dashboard proves who it is: an admin key, or an SSO session (its cookie, and this CSRF token). */
export type Credential = { key: string } | { csrf: string }

export type QueryParams = Record<string, string | number | boolean | undefined>

export interface AdminClient {
  get<T extends z.ZodType>(path: string, schema: T, query?: QueryParams): Promise<z.infer<T>>
  send<T extends z.ZodType>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, schema: T, body?: unknown): Promise<z.infer<T>>
}

/** Query string without empty values: the audit API treats `provider=` as given-but-empty. */
function toQueryString(query: QueryParams = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** Calls the admin API with `credential`; `onUnauthorized` runs when a call is answered 401 (key revoked or expired, session ended). */
export function adminClient(credential: Credential, onUnauthorized: (error: ApiError) => void): AdminClient {
  async function call<T extends z.ZodType>(method: string, path: string, schema: T, body?: unknown): Promise<z.infer<T>> {
    const response = await requestAdmin(credential, method, path, body)
    if (response.status === 401) onUnauthorized(await errorOf(response))
    if (!response.ok) throw await errorOf(response)
    return parseAnswer(schema, await response.json(), path)
  }
  return {
    get: (path, schema, query) => call('GET', `${path}${toQueryString(query)}`, schema),
    send: (method, path, schema, body) => call(method, path, schema, body),
  }
}

export async function requestAdmin(credential: Credential, method: string, path: string, body?: unknown, base = '/admin'): Promise<Response> {
  const auth: Record<string, string> = 'key' in credential ? { authorization: `Bearer ${credential.key}` } : method === 'GET' ? {} : { 'x-csrf-token': credential.csrf }
  try {
    return await fetch(`${base}${path}`, {
      method,
      credentials: 'same-origin',
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new ApiError('The gateway cannot be reached. Is it running?', 0)
  }
}

export async function errorOf(response: Response): Promise<ApiError> {
  const parsed = gatewayErrorSchema.safeParse(await response.json().catch(() => undefined))
  if (!parsed.success) return new ApiError(`The gateway answered ${response.status} ${response.statusText}.`, response.status)
  const { message, code, param } = parsed.data.error
  return new ApiError(message, response.status, code, param)
}

export function parseAnswer<T extends z.ZodType>(schema: T, value: unknown, path: string): z.infer<T> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  throw new ApiError(`Unexpected answer from ${path.split('?')[0]}: ${issue.path.join('.') || 'body'}: ${issue.message}`, 200)
}
