/**
 * @module How a cloud provider's requests are authenticated when not by a static API key: every request signed with
 * AWS SigV4 (Bedrock), or a bearer token from Google's Application Default Credentials (Vertex AI) or Microsoft
 * Entra ID (Azure). Made once per configured instance from its settings (src/credentials/ does the work, lazily);
 * `fetchUpstream` and `fetchModelIds` apply it to each request, so an adapter cannot forget it, and a credential
 * that cannot be had becomes the attempt's error like any upstream failure.
 */
import type { ProviderConfig } from '../config/schema.ts'
import type { ProviderTypeInfo } from '../config/provider-catalog.ts'
import { awsCredentialSource } from '../credentials/aws-credentials.ts'
import { type RequestSigner, type SignableRequest, sigV4Signer } from '../credentials/aws-signer.ts'
import { entraTokenSource } from '../credentials/entra.ts'
import { googleTokenSource } from '../credentials/google-adc.ts'
import type { RefreshingToken } from '../credentials/refreshing.ts'
import { GatewayError } from '../errors/gateway-error.ts'

export type UpstreamAuth = { kind: 'sigv4'; sign: RequestSigner } | { kind: 'bearer'; token: RefreshingToken }

/** The instance's credentials, or undefined when it authenticates with its API key (or nothing). */
export function upstreamAuthFor(name: string, info: ProviderTypeInfo, config: ProviderConfig): UpstreamAuth | undefined {
  if (info.credentials === 'aws' && !config.api_key) {
    const aws = config.aws ?? {}
    const region = config.region ?? 'us-east-1'
    const credentials = awsCredentialSource(name, {
      region,
      accessKeyId: aws.access_key_id,
      secretAccessKey: aws.secret_access_key,
      sessionToken: aws.session_token,
      profile: aws.profile,
      roleArn: aws.role_arn,
      webIdentityTokenFile: aws.web_identity_token_file,
    })
    return { kind: 'sigv4', sign: sigV4Signer({ service: info.awsSigningName ?? 'bedrock', region, credentials }) }
  }
  if (info.credentials === 'google' && !config.api_key) return { kind: 'bearer', token: googleTokenSource(name, { credentialsFile: config.google?.credentials_file }) }
  if (info.credentials === 'entra' && config.entra && !config.api_key) {
    const e = config.entra
    return {
      kind: 'bearer',
      token: entraTokenSource(name, {
        tenantId: e.tenant_id,
        clientId: e.client_id,
        clientSecret: e.client_secret,
        federatedTokenFile: e.federated_token_file,
        authorityHost: e.authority_host,
      }),
    }
  }
  return undefined
}

/** The headers that authenticate this request (added to its own), or the credential's failure. */
export async function authorize(auth: UpstreamAuth, request: SignableRequest): Promise<Record<string, string> | GatewayError> {
  if (auth.kind === 'sigv4') return auth.sign(request)
  const token = await auth.token.get()
  return token instanceof GatewayError ? token : { ...request.headers, authorization: `Bearer ${token}` }
}

/** The configured secrets of an instance's cloud credentials, to scrub from what leaves the gateway. */
export function cloudSecrets(config: ProviderConfig): string[] {
  return [config.aws?.secret_access_key, config.aws?.session_token, config.entra?.client_secret].filter((s): s is string => typeof s === 'string')
}
