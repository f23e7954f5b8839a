/**
 * @module The clouds' own conventions in the configuration: when the environment configures a cloud provider
 * (`bedrock` and `vertex` by their `<PREFIX>_MODELS` / `<PREFIX>_BASE_URL`, Azure by an Entra ID app instead of
 * `AZURE_API_KEY`), and the cloud's standard variables as defaults for every instance of its type: the AWS region,
 * the Vertex AI project and location, the Entra ID authority, static AWS keys and Google's key file (so the
 * configuration read from a given environment is the one used). Everything else (profiles, web identity, metadata
 * endpoints) the AWS chain and Google's Application Default Credentials find when they are first used.
 */
import { PROVIDER_TYPES, type ProviderType, type ProviderTypeInfo } from './provider-catalog.ts'

type Env = Record<string, string | undefined>
type RawProvider = Record<string, unknown>

/** Whether the environment configures this cloud provider without an API key. */
export function cloudProviderFromEnvironment(info: ProviderTypeInfo, env: Env): boolean {
  const p = info.envPrefix
  if (info.credentials === 'aws') return Boolean(env[`${p}_MODELS`] || env[`${p}_BASE_URL`])
  if (info.credentials === 'google') return Boolean(env[`${p}_MODELS`] || env[`${p}_BASE_URL`] || env.VERTEX_PROJECT)
  if (info.credentials === 'entra') return Boolean(env[`${p}_BASE_URL`] && entraFromEnvironment(env))
  return false
}

function entraFromEnvironment(env: Env): Record<string, string> | undefined {
  if (!env.AZURE_TENANT_ID || !env.AZURE_CLIENT_ID || !(env.AZURE_CLIENT_SECRET || env.AZURE_FEDERATED_TOKEN_FILE)) return undefined
  const entra: Record<string, string> = { tenant_id: env.AZURE_TENANT_ID, client_id: env.AZURE_CLIENT_ID }
  if (env.AZURE_CLIENT_SECRET) entra.client_secret = env.AZURE_CLIENT_SECRET
  else entra.federated_token_file = env.AZURE_FEDERATED_TOKEN_FILE!
  return entra
}

/** Fills each cloud instance's region, project, location and Entra ID app from the cloud's standard variables. */
export function applyCloudDefaults(providers: Record<string, RawProvider>, env: Env, origins: Map<string, string>): void {
  for (const [name, entry] of Object.entries(providers)) {
    const info = PROVIDER_TYPES[entry?.type as ProviderType] as ProviderTypeInfo | undefined
    if (!info?.credentials) continue
    const fill = (field: string, ...names: string[]) => {
      if (entry[field] !== undefined) return
      const source = names.find((n) => env[n])
      if (!source) return
      entry[field] = env[source]
      origins.set(`providers.${name}.${field}`, `env ${source}`)
    }
    if (info.credentials === 'aws') {
      fill('region', 'AWS_REGION', 'AWS_DEFAULT_REGION')
      // The chain's order: keys in the environment come first, unless a profile is named.
      if (entry.aws === undefined && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY && !env.AWS_PROFILE) {
        entry.aws = {
          access_key_id: env.AWS_ACCESS_KEY_ID,
          secret_access_key: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { session_token: env.AWS_SESSION_TOKEN } : {}),
        }
        origins.set(`providers.${name}.aws`, 'env AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY')
      }
    }
    if (info.credentials === 'google') {
      if (entry.google === undefined && env.GOOGLE_APPLICATION_CREDENTIALS) {
        entry.google = { credentials_file: env.GOOGLE_APPLICATION_CREDENTIALS }
        origins.set(`providers.${name}.google`, 'env GOOGLE_APPLICATION_CREDENTIALS')
      }
      fill('project', 'VERTEX_PROJECT', 'GOOGLE_CLOUD_PROJECT')
      fill('location', 'VERTEX_LOCATION')
      entry.location ??= 'us-central1'
    }
    if (info.credentials === 'entra' && entry.api_key === undefined) {
      const fromEnv = entry.entra === undefined ? entraFromEnvironment(env) : undefined
      if (fromEnv) {
        entry.entra = fromEnv
        origins.set(`providers.${name}.entra`, 'env AZURE_TENANT_ID, AZURE_CLIENT_ID')
      }
      const entra = entry.entra as Record<string, unknown> | undefined
      if (entra && entra.authority_host === undefined && env.AZURE_AUTHORITY_HOST) entra.authority_host = env.AZURE_AUTHORITY_HOST
    }
  }
}

/** The base URL an instance calls: its own, its region's, or its type's default. */
export function providerBaseUrl(info: ProviderTypeInfo, provider: { base_url?: string; region?: string; location?: string }): string | undefined {
  if (provider.base_url) return provider.base_url
  const place = info.credentials === 'google' ? provider.location : provider.region
  if (info.regionalBaseUrl && place) return info.regionalBaseUrl(place)
  return info.defaultBaseUrl
}

/** What is wrong with a cloud instance's settings (fields of another cloud, halves of a pair), as config problems. */
export function cloudSettingsProblems(name: string, info: ProviderTypeInfo, provider: Record<string, unknown>): string[] {
  const problems: string[] = []
  const at = `providers.${name}`
  const only = (field: string, cloud: string) => {
    if (provider[field] !== undefined && info.credentials !== cloud) problems.push(`${at}.${field}: only for provider types with ${cloud} credentials (type '${provider.type}')`)
  }
  only('aws', 'aws')
  only('region', 'aws')
  only('google', 'google')
  only('project', 'google')
  only('location', 'google')
  only('entra', 'entra')
  if (info.credentials === 'aws' && !provider.region) problems.push(`${at}.region: required for provider type '${provider.type}' (or set AWS_REGION)`)
  if (info.credentials === 'google' && !provider.project) problems.push(`${at}.project: required for provider type '${provider.type}' (or set VERTEX_PROJECT)`)
  const aws = provider.aws as Record<string, unknown> | undefined
  if (aws && Boolean(aws.access_key_id) !== Boolean(aws.secret_access_key)) problems.push(`${at}.aws: access_key_id and secret_access_key go together`)
  if (aws && Boolean(aws.role_arn) !== Boolean(aws.web_identity_token_file)) problems.push(`${at}.aws: role_arn and web_identity_token_file go together`)
  const entra = provider.entra as Record<string, unknown> | undefined
  if (entra && !entra.client_secret && !entra.federated_token_file) problems.push(`${at}.entra: needs client_secret or federated_token_file`)
  return problems
}
