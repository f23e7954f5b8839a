/**
 * @module Google Application Default Credentials for Vertex AI, in Google's documented order: the key file named in
 * the provider's settings or `GOOGLE_APPLICATION_CREDENTIALS`, then gcloud's well-known file, then the metadata
 * server (`GCE_METADATA_HOST` overrides its address). A key file is a service account (a signed JWT exchanged at
 * the file's own `token_uri`), an authorized user (a refresh token), or an external account (workload identity
 * federation: a subject token from a file or URL exchanged at Google's STS, then optionally a service account
 * impersonated). Tokens carry the cloud-platform scope and are kept fresh by RefreshingToken.
 */
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { GatewayError } from '../errors/gateway-error.ts'
import { credentialError } from './credential-errors.ts'
import { CLOUD_PLATFORM_SCOPE, externalAccountToken } from './google-external-account.ts'
import { signJwtRs256 } from './google-jwt.ts'
import { type ExpiringToken, Refreshing, type RefreshingToken } from './refreshing.ts'
import { accessTokenFrom, callTokenEndpoint } from './token-endpoint.ts'

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token'
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

export interface GoogleSettings {
  /** A key file; default GOOGLE_APPLICATION_CREDENTIALS, then gcloud's well-known file, then the metadata server. */
  credentialsFile?: string
}

type Env = Record<string, string | undefined>
type Json = Record<string, unknown>

export function googleTokenSource(provider: string, settings: GoogleSettings, env: Env = process.env): RefreshingToken {
  return new Refreshing(() => fetchGoogleToken(provider, settings, env))
}

export async function fetchGoogleToken(provider: string, settings: GoogleSettings, env: Env = process.env): Promise<ExpiringToken | GatewayError> {
  const file = await findKeyFile(settings, env)
  if (file instanceof GatewayError) return credentialError(provider, 'google', 'invalid', file.message)
  if (!file) return metadataServerToken(provider, env)
  const { path, text } = file
  let key: Json
  try {
    key = JSON.parse(text) as Json
  } catch {
    return credentialError(provider, 'google', 'invalid', `the key file ${path} is not JSON`)
  }
  switch (key.type) {
    case 'service_account':
      return serviceAccountToken(provider, path, key)
    case 'authorized_user':
      return authorizedUserToken(provider, path, key)
    case 'external_account':
      return externalAccountToken(provider, path, key)
    default:
      return credentialError(
        provider,
        'google',
        'invalid',
        `the key file ${path} has type ${JSON.stringify(key.type)}; the gateway reads service_account, authorized_user and external_account`,
      )
  }
}

/** The key file to use and its text, undefined when there is none (then the metadata server), or why it cannot be read. */
async function findKeyFile(settings: GoogleSettings, env: Env): Promise<{ path: string; text: string } | GatewayError | undefined> {
  const named = settings.credentialsFile ?? (env.GOOGLE_APPLICATION_CREDENTIALS || undefined)
  if (named) {
    try {
      return { path: named, text: await readFile(named, 'utf8') }
    } catch (error) {
      return new GatewayError({ status: 502, type: 'provider_error', message: `the key file ${named} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` })
    }
  }
  const wellKnown = join(env.CLOUDSDK_CONFIG || join(env.HOME || homedir(), '.config', 'gcloud'), 'application_default_credentials.json')
  try {
    return { path: wellKnown, text: await readFile(wellKnown, 'utf8') }
  } catch {
    return undefined
  }
}

async function serviceAccountToken(provider: string, path: string, key: Json): Promise<ExpiringToken | GatewayError> {
  const { client_email: email, private_key: privateKey, private_key_id: keyId } = key
  if (typeof email !== 'string' || typeof privateKey !== 'string')
    return credentialError(provider, 'google', 'invalid', `the service account key file ${path} lacks client_email or private_key`)
  const tokenUri = typeof key.token_uri === 'string' && key.token_uri ? key.token_uri : DEFAULT_TOKEN_URI
  const now = Math.floor(Date.now() / 1000)
  let assertion: string
  try {
    assertion = await signJwtRs256(privateKey, { iss: email, scope: CLOUD_PLATFORM_SCOPE, aud: tokenUri, iat: now, exp: now + 3600 }, typeof keyId === 'string' ? keyId : undefined)
  } catch {
    return credentialError(provider, 'google', 'invalid', `the private_key of ${path} is not an RSA private key in PKCS #8 PEM`)
  }
  return accessTokenFrom(
    provider,
    'google',
    await callTokenEndpoint({ provider, cloud: 'google', what: `the token exchange at ${tokenUri}`, url: tokenUri, form: { grant_type: JWT_BEARER_GRANT, assertion } }),
  )
}

async function authorizedUserToken(provider: string, path: string, key: Json): Promise<ExpiringToken | GatewayError> {
  const { client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken } = key
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || typeof refreshToken !== 'string') {
    return credentialError(provider, 'google', 'invalid', `the authorized_user file ${path} lacks client_id, client_secret or refresh_token`)
  }
  const tokenUri = typeof key.token_uri === 'string' && key.token_uri ? key.token_uri : DEFAULT_TOKEN_URI
  const form = { grant_type: 'refresh_token', client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken }
  return accessTokenFrom(provider, 'google', await callTokenEndpoint({ provider, cloud: 'google', what: `the token refresh at ${tokenUri}`, url: tokenUri, form }))
}

async function metadataServerToken(provider: string, env: Env): Promise<ExpiringToken | GatewayError> {
  const host = env.GCE_METADATA_HOST || env.GCE_METADATA_IP || 'metadata.google.internal'
  const url = `http://${host}/computeMetadata/v1/instance/service-accounts/default/token`
  const answer = await callTokenEndpoint({
    provider,
    cloud: 'google',
    what: `the metadata server at ${host} (no key file was found)`,
    url,
    headers: { 'metadata-flavor': 'Google' },
    timeoutMs: 3_000,
  })
  if (answer instanceof GatewayError && answer.code === 'google_credentials_unreachable' && !env.GCE_METADATA_HOST) {
    return credentialError(
      provider,
      'google',
      'missing',
      `no key file (GOOGLE_APPLICATION_CREDENTIALS, gcloud's application_default_credentials.json) and no metadata server: ${answer.message}`,
    )
  }
  return accessTokenFrom(provider, 'google', answer)
}
