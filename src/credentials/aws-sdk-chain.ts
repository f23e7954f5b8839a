/**
 * @module The AWS SDK's credential chain, which src/credentials/aws-credentials.ts imports on first use: a gateway
 * without a Bedrock provider that needs it never loads the SDK (its Smithy runtime is hundreds of modules).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node'
import { fromTokenFile } from '@aws-sdk/credential-provider-web-identity'
import type { AwsCredentialIdentity } from '@smithy/types'
import type { AwsSettings } from './aws-credentials.ts'

export type SdkProvider = (options?: { forceRefresh?: boolean }) => Promise<AwsCredentialIdentity>

export type SdkLogger = { debug(...parts: unknown[]): void; info(): void; warn(): void; error(): void }

/** A web identity (role and token file) when both are set, else the SDK's default chain for the profile. */
export function sdkProvider(settings: AwsSettings, logger: SdkLogger): SdkProvider {
  const clientConfig = { region: settings.region }
  if (settings.roleArn && settings.webIdentityTokenFile) {
    return fromTokenFile({ roleArn: settings.roleArn, webIdentityTokenFile: settings.webIdentityTokenFile, roleSessionName: 'ai-gateway', clientConfig, logger }) as SdkProvider
  }
  return defaultProvider({ profile: settings.profile, clientConfig, logger }) as SdkProvider
}
