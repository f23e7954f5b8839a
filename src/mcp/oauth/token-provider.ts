/**
 * @module The SDK's `OAuthClientProvider` for one credential owner's connection to an upstream server: it hands the
 * transport the owner's stored access token and, when the server answers 401, lets the SDK refresh it (the new
 * tokens are sealed and stored again). It never starts an interactive authorization: that needs the person in a
 * browser, so it ends the call with `AuthorizationRequired`, and the caller is given a link
 * (./authorization.ts).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { McpHttpServerConfig } from '../config.ts'
import type { CredentialOwner, UpstreamCredentials } from './credentials.ts'

export class AuthorizationRequired extends Error {
  constructor(readonly server: string) {
    super(`the MCP server '${server}' needs this caller's authorization`)
    this.name = 'AuthorizationRequired'
  }
}

export const clientMetadataFor = (redirectUrl: string, config: McpHttpServerConfig): OAuthClientMetadata => ({
  client_name: 'AI gateway',
  redirect_uris: [redirectUrl],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...(config.oauth?.scopes ? { scope: config.oauth.scopes.join(' ') } : {}),
})

/** The client registered by hand in the configuration, else the gateway's stored registration. */
export async function clientInformationFor(server: string, config: McpHttpServerConfig, credentials: UpstreamCredentials): Promise<OAuthClientInformationMixed | undefined> {
  if (config.oauth?.client_id) return { client_id: config.oauth.client_id, ...(config.oauth.client_secret ? { client_secret: config.oauth.client_secret } : {}) }
  return credentials.clientInformation(server)
}

export class StoredTokenProvider implements OAuthClientProvider {
  private cached: OAuthTokens | undefined

  constructor(
    private readonly server: string,
    private readonly config: McpHttpServerConfig,
    private readonly owner: CredentialOwner,
    private readonly credentials: UpstreamCredentials,
    private readonly callbackUrl: string,
  ) {}

  get redirectUrl(): string {
    return this.callbackUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.callbackUrl, this.config)
  }

  clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return clientInformationFor(this.server, this.config, this.credentials)
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.credentials.saveClientInformation(this.server, info)
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    this.cached ??= (await this.credentials.tokens(this.server, this.owner))?.tokens
    return this.cached
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.cached = tokens
    await this.credentials.saveTokens(this.server, this.owner, tokens)
  }

  redirectToAuthorization(): never {
    throw new AuthorizationRequired(this.server)
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw new AuthorizationRequired(this.server)
  }

  /** The SDK found the tokens (or the client) no longer valid. */
  invalidateCredentials(): void {
    this.cached = undefined
  }
}
