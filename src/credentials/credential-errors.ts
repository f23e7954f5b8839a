/**
 * @module How a cloud credential that could not be had reaches the client and the audit entry: a GatewayError
 * naming the provider and the problem (`<cloud>_credentials_<problem>`), never the secret. A credential the
 * gateway lacks, cannot read or was refused is the operator's to fix (502); a token endpoint or metadata service
 * that did not answer may answer the next time (503, which clients retry).
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { scrubCredentialShapes } from '../pipeline/headers.ts'

export type CredentialCloud = 'aws' | 'google' | 'azure'

/**
 * - `missing`: no source in the chain had a credential (no keys, files, web identity token or metadata service);
 * - `invalid`: a configured source could not be used (a file that is unreadable or not a credential);
 * - `refused`: the token service refused the credential (a revoked key, a wrong audience or role);
 * - `unreachable`: the token service or metadata endpoint did not answer in time, or answered nonsense.
 */
export type CredentialProblem = 'missing' | 'invalid' | 'refused' | 'unreachable'

const CLOUD_NAMES: Record<CredentialCloud, string> = { aws: 'AWS credentials', google: 'Google credentials', azure: 'Microsoft Entra ID token' }

/** Longest detail kept from a token service's own message. */
const MAX_DETAIL = 500

export function credentialError(provider: string, cloud: CredentialCloud, problem: CredentialProblem, detail: string): GatewayError {
  const shown = scrubCredentialShapes(detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail)
  return new GatewayError({
    status: problem === 'unreachable' ? 503 : 502,
    type: 'provider_error',
    provider,
    code: `${cloud}_credentials_${problem}`,
    message: `The gateway could not get its ${CLOUD_NAMES[cloud]} for provider '${provider}' (${problem}): ${shown}`,
  })
}

/** Whether a failed request to a token or metadata endpoint never got an answer (refused connection, timeout, DNS). */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true
  const code = (error as { code?: unknown }).code
  return (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ConnectionRefused|ConnectionClosed|FailedToOpenSocket)$/.test(code)
  )
}
