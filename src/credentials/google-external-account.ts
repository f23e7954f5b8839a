/**
 * @module Workload identity federation (`"type": "external_account"` key files): the subject token (an OIDC or SAML
 * token from another identity provider) is read from the file or URL the key file names, exchanged at Google's
 * STS (`token_url`, RFC 8693) for a federated access token, and, when the file names a service account to
 * impersonate, that token is traded for the service account's at the IAM Credentials API.
 */
import { readFile } from 'node:fs/promises'
import { GatewayError } from '../errors/gateway-error.ts'
import { credentialError } from './credential-errors.ts'
import type { ExpiringToken } from './refreshing.ts'
import { accessTokenFrom, callTokenEndpoint } from './token-endpoint.ts'

type Json = Record<string, unknown>

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'

export async function externalAccountToken(provider: string, path: string, key: Json): Promise<ExpiringToken | GatewayError> {
  const { audience, subject_token_type: subjectTokenType, token_url: tokenUrl } = key
  const source = (key.credential_source ?? {}) as Json
  if (typeof audience !== 'string' || typeof subjectTokenType !== 'string' || typeof tokenUrl !== 'string') {
    return credentialError(provider, 'google', 'invalid', `the external_account file ${path} lacks audience, subject_token_type or token_url`)
  }
  const subjectToken = await readSubjectToken(provider, path, source)
  if (subjectToken instanceof GatewayError) return subjectToken
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE_GRANT,
    audience,
    scope: CLOUD_PLATFORM_SCOPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    subject_token: subjectToken,
    subject_token_type: subjectTokenType,
  }
  if (typeof key.workforce_pool_user_project === 'string') form.options = JSON.stringify({ userProject: key.workforce_pool_user_project })
  const federated = accessTokenFrom(provider, 'google', await callTokenEndpoint({ provider, cloud: 'google', what: `the token exchange at ${tokenUrl}`, url: tokenUrl, form }))
  const impersonationUrl = key.service_account_impersonation_url
  if (federated instanceof GatewayError || typeof impersonationUrl !== 'string') return federated
  const lifetime = Number(((key.service_account_impersonation ?? {}) as Json).token_lifetime_seconds ?? 3600)
  const answer = await callTokenEndpoint({
    provider,
    cloud: 'google',
    what: `the service account impersonation at ${impersonationUrl}`,
    url: impersonationUrl,
    headers: { authorization: `Bearer ${federated.value}` },
    json: { scope: [CLOUD_PLATFORM_SCOPE], lifetime: `${lifetime}s` },
  })
  if (answer instanceof GatewayError) return answer
  const expiresAt = Date.parse(String(answer.expireTime))
  if (typeof answer.accessToken !== 'string' || !Number.isFinite(expiresAt)) {
    return credentialError(provider, 'google', 'unreachable', 'the service account impersonation answered without accessToken and expireTime')
  }
  return { value: answer.accessToken, expiresAt }
}

/** The subject token from `credential_source.file` or `.url`, as text or from a JSON field (`format`). */
async function readSubjectToken(provider: string, path: string, source: Json): Promise<string | GatewayError> {
  let text: string
  if (typeof source.file === 'string') {
    try {
      text = await readFile(source.file, 'utf8')
    } catch (error) {
      return credentialError(provider, 'google', 'invalid', `the subject token file ${source.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    }
  } else if (typeof source.url === 'string') {
    try {
      const response = await fetch(source.url, { headers: (source.headers ?? {}) as Record<string, string>, redirect: 'manual', signal: AbortSignal.timeout(10_000) })
      if (!response.ok) return credentialError(provider, 'google', 'unreachable', `the subject token URL answered HTTP ${response.status}`)
      text = await response.text()
    } catch (error) {
      return credentialError(provider, 'google', 'unreachable', `the subject token URL did not answer (${(error as Error).message})`)
    }
  } else {
    return credentialError(provider, 'google', 'invalid', `the external_account file ${path} has a credential_source the gateway does not read (it reads file and url sources)`)
  }
  const format = (source.format ?? {}) as Json
  if (format.type !== 'json') return text.trim() || credentialError(provider, 'google', 'invalid', 'the subject token is empty')
  try {
    const field = (JSON.parse(text) as Json)[String(format.subject_token_field_name)]
    if (typeof field === 'string' && field) return field
  } catch {
    // reported below
  }
  return credentialError(provider, 'google', 'invalid', `the subject token is not JSON with the field ${JSON.stringify(format.subject_token_field_name)}`)
}
