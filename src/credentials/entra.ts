/**
 * @module Microsoft Entra ID access tokens for Azure OpenAI / Azure AI Foundry, by the OAuth 2.0 client credentials
 * flow at `{authority}/{tenant}/oauth2/v2.0/token`: with a client secret, or with a federated token (workload
 * identity: the file Kubernetes projects and rotates, read again for every fetch) as a client assertion. The
 * token is for the Cognitive Services scope and kept fresh by RefreshingToken.
 */
import { readFile } from 'node:fs/promises'
import type { GatewayError } from '../errors/gateway-error.ts'
import { credentialError } from './credential-errors.ts'
import { type ExpiringToken, Refreshing, type RefreshingToken } from './refreshing.ts'
import { accessTokenFrom, callTokenEndpoint } from './token-endpoint.ts'

export interface EntraSettings {
  tenantId: string
  clientId: string
  clientSecret?: string
  /** A file holding a federated token (AZURE_FEDERATED_TOKEN_FILE); used when there is no secret. */
  federatedTokenFile?: string
  /** Default `https://login.microsoftonline.com` (AZURE_AUTHORITY_HOST for sovereign clouds or a test endpoint). */
  authorityHost?: string
  /** Default the Cognitive Services scope Azure OpenAI and Foundry take. */
  scope?: string
}

export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default'
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com'
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'

export function entraTokenSource(provider: string, settings: EntraSettings): RefreshingToken {
  return new Refreshing(() => fetchEntraToken(provider, settings))
}

export async function fetchEntraToken(provider: string, settings: EntraSettings): Promise<ExpiringToken | GatewayError> {
  const form: Record<string, string> = { grant_type: 'client_credentials', client_id: settings.clientId, scope: settings.scope ?? COGNITIVE_SERVICES_SCOPE }
  if (settings.clientSecret) form.client_secret = settings.clientSecret
  else if (settings.federatedTokenFile) {
    let assertion: string
    try {
      assertion = (await readFile(settings.federatedTokenFile, 'utf8')).trim()
    } catch (error) {
      return credentialError(
        provider,
        'azure',
        'invalid',
        `the federated token file ${settings.federatedTokenFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      )
    }
    if (!assertion) return credentialError(provider, 'azure', 'invalid', `the federated token file ${settings.federatedTokenFile} is empty`)
    form.client_assertion_type = JWT_BEARER_ASSERTION
    form.client_assertion = assertion
  } else return credentialError(provider, 'azure', 'missing', 'neither a client secret nor a federated token file is configured')
  const authority = (settings.authorityHost ?? DEFAULT_AUTHORITY_HOST).replace(/\/+$/, '')
  const url = `${authority}/${encodeURIComponent(settings.tenantId)}/oauth2/v2.0/token`
  const answer = await callTokenEndpoint({ provider, cloud: 'azure', what: `the Entra ID token endpoint ${authority}`, url, form })
  return accessTokenFrom(provider, 'azure', answer)
}
