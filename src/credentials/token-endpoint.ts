/**
 * @module One call to a token service or metadata endpoint (Google's token URI and STS, Microsoft Entra ID, Google's
 * metadata server): bounded in time and size, redirects refused (a redirect would carry the assertion elsewhere),
 * and every failure a credential GatewayError: 4xx `refused` with the service's own reason, 5xx, no answer or an
 * unreadable one `unreachable`.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { type CredentialCloud, credentialError, isNetworkFailure } from './credential-errors.ts'
import type { ExpiringToken } from './refreshing.ts'

export interface TokenEndpointCall {
  provider: string
  cloud: CredentialCloud
  /** What is asked for, for the error message ("the token exchange at https://…"). */
  what: string
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>
  json?: unknown
  timeoutMs?: number
}

const MAX_ANSWER_BYTES = 256 * 1024

export async function callTokenEndpoint(call: TokenEndpointCall): Promise<Record<string, unknown> | GatewayError> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers }
  let body: string | undefined
  if (call.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(call.form).toString()
  } else if (call.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(call.json)
  }
  let response: Response
  let text: string
  try {
    response = await fetch(call.url, {
      method: call.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(call.timeoutMs ?? 10_000),
    })
    text = await response.text()
  } catch (error) {
    const detail = isNetworkFailure(error)
      ? `${call.what} did not answer (${(error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message})`
      : `${call.what} failed: ${String(error)}`
    return credentialError(call.provider, call.cloud, 'unreachable', detail)
  }
  if (text.length > MAX_ANSWER_BYTES) return credentialError(call.provider, call.cloud, 'unreachable', `${call.what} answered with more than ${MAX_ANSWER_BYTES} bytes`)
  if (response.status >= 300 && response.status < 400)
    return credentialError(call.provider, call.cloud, 'refused', `${call.what} answered with a redirect (HTTP ${response.status}), which is not followed`)
  const parsed = parseObject(text)
  if (!response.ok) {
    const problem = response.status >= 500 || response.status === 429 ? 'unreachable' : 'refused'
    return credentialError(call.provider, call.cloud, problem, `${call.what} answered HTTP ${response.status}${reasonOf(parsed, text)}`)
  }
  if (!parsed) return credentialError(call.provider, call.cloud, 'unreachable', `${call.what} answered with a body that is not a JSON object`)
  return parsed
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The reason an OAuth-style error answer gives (`error`, `error_description`, Google's `error.message`). */
function reasonOf(body: Record<string, unknown> | undefined, text: string): string {
  if (!body) return text.trim() ? `: ${text.trim().slice(0, 200)}` : ''
  const error = body.error
  if (typeof error === 'object' && error !== null) {
    const message = (error as Record<string, unknown>).message
    return typeof message === 'string' ? `: ${message}` : ''
  }
  const parts = [error, body.error_description].filter((p): p is string => typeof p === 'string' && p !== '')
  return parts.length > 0 ? `: ${parts.join(': ')}` : ''
}

/** `expires_in` seconds (a number or numeric string) as an epoch time in ms; an hour when the answer has none. */
export function expiryFrom(expiresIn: unknown, now = Date.now()): number {
  const seconds = typeof expiresIn === 'number' ? expiresIn : typeof expiresIn === 'string' ? Number(expiresIn) : Number.NaN
  return now + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000
}

/** An OAuth token answer (`{access_token, expires_in}`) as a token, or the error it already was. */
export function accessTokenFrom(provider: string, cloud: CredentialCloud, answer: Record<string, unknown> | GatewayError): ExpiringToken | GatewayError {
  if (answer instanceof GatewayError) return answer
  const token = answer.access_token
  if (typeof token !== 'string' || !token) return credentialError(provider, cloud, 'unreachable', 'the token endpoint answered without an access_token')
  return { value: token, expiresAt: expiryFrom(answer.expires_in) }
}
