/**
 * @module AWS credentials for Bedrock, from the maintained AWS SDK providers, loaded only when a Bedrock provider
 * first needs them (about 2.5 MiB resident; the STS client behind web identity another 7.5 MiB, only when that
 * source is used). Static keys from the provider's settings are used as they are; a role and token file from the
 * settings go through STS AssumeRoleWithWebIdentity; otherwise the SDK's default chain: the environment
 * (`AWS_ACCESS_KEY_ID`…), SSO, web identity (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`, EKS IRSA and Pod
 * Identity), the shared credentials and config files (`AWS_PROFILE` or the settings' profile), then the ECS
 * container and EC2 instance metadata endpoints (IMDSv2). Temporary credentials are renewed in the background
 * before they expire (Refreshing); a failure is a credential GatewayError naming the problem, never a secret.
 */
import type { AwsCredentialIdentity } from '@smithy/types'
import type { GatewayError } from '../errors/gateway-error.ts'
import { credentialError, isNetworkFailure } from './credential-errors.ts'
import type { SdkProvider } from './aws-sdk-chain.ts'
import { type Expiring, Refreshing } from './refreshing.ts'

export interface AwsSettings {
  /** Signing region; also the region of the STS client behind web identity. */
  region: string
  accessKeyId?: string
  secretAccessKey?: string
  sessionToken?: string
  /** A profile of the shared files (default `AWS_PROFILE`, then `default`). */
  profile?: string
  /** With `webIdentityTokenFile`: assume this role through STS. */
  roleArn?: string
  webIdentityTokenFile?: string
}

export type AwsCredentials = AwsCredentialIdentity
export type AwsCredentialSource = Refreshing<AwsCredentials>

export function awsCredentialSource(provider: string, settings: AwsSettings): AwsCredentialSource {
  let sdkProvider: Promise<SdkProvider> | undefined
  // What the chain's links said while failing (Refreshing makes one fetch at a time): the chain itself reports only
  // "could not load credentials from any providers", while a metadata endpoint that did not answer is worth naming.
  const notes: string[] = []
  const logger = { debug: (...parts: unknown[]) => notes.push(parts.map(String).join(' ')), info() {}, warn() {}, error() {} }
  return new Refreshing<AwsCredentials>(async () => {
    if (settings.accessKeyId && settings.secretAccessKey) {
      return { value: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, sessionToken: settings.sessionToken }, expiresAt: Number.POSITIVE_INFINITY }
    }
    sdkProvider ??= import('./aws-sdk-chain.ts').then((chain) => chain.sdkProvider(settings, logger))
    notes.length = 0
    try {
      // The SDK's chain keeps its own copy; this cache asks only when its copy needs renewing, so it forces a fetch.
      const credentials = await (await sdkProvider)({ forceRefresh: true })
      return expiring(credentials)
    } catch (error) {
      return awsCredentialError(provider, error, notes)
    }
  })
}

function expiring(credentials: AwsCredentialIdentity): Expiring<AwsCredentials> {
  const { accessKeyId, secretAccessKey, sessionToken, expiration } = credentials
  return { value: { accessKeyId, secretAccessKey, sessionToken, expiration }, expiresAt: expiration?.getTime() ?? Number.POSITIVE_INFINITY }
}

const UNANSWERED = /ECONN|EHOST|ENETUNREACH|getaddrinfo|timed? ?out|socket hang up|Unable to connect/i

/** The SDK's failure as a credential error: no source had credentials, STS refused, or an endpoint did not answer. */
export function awsCredentialError(provider: string, error: unknown, notes: readonly string[] = []): GatewayError {
  const e = (error ?? {}) as Error & { $metadata?: { httpStatusCode?: number }; code?: string }
  const detail = `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? String(error)}`
  if (isNetworkFailure(error) || /timed? ?out|ECONNREFUSED|Unable to connect/i.test(e.message ?? '')) return credentialError(provider, 'aws', 'unreachable', detail)
  const status = e.$metadata?.httpStatusCode
  if (typeof status === 'number') return credentialError(provider, 'aws', status >= 500 || status === 429 ? 'unreachable' : 'refused', detail)
  if (e.code === 'ENOENT' || e.code === 'EACCES') return credentialError(provider, 'aws', 'invalid', detail)
  if (e.name === 'CredentialsProviderError' && /could not load credentials from any providers/i.test(e.message)) {
    const unanswered = notes.findLast((note) => note.startsWith('@smithy/property-provider ->') && UNANSWERED.test(note))
    if (unanswered)
      return credentialError(
        provider,
        'aws',
        'unreachable',
        `the container or instance metadata endpoint did not answer (${unanswered.replace(/^@smithy\/property-provider -> (Error: )?/, '')})`,
      )
    return credentialError(provider, 'aws', 'missing', 'no source had credentials (environment, web identity, shared files, container or instance metadata)')
  }
  return credentialError(provider, 'aws', e.name === 'CredentialsProviderError' ? 'missing' : 'invalid', detail)
}
