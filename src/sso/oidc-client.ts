/**
 * @module The gateway as an OpenID Connect relying party (authorization code flow with PKCE, S256): the
 * provider's configuration discovered from its issuer URL, the authorization URL, the code exchanged at the token
 * endpoint with the client secret, and the ID token verified with `jose` against the provider's JWKS (issuer,
 * audience = client id, nonce, expiry; asymmetric algorithms only).
 */
import type { JWTPayload, JWTVerifyGetKey } from 'jose'
import { loadJose } from '../keys/jwt/jose.ts'
import { JWT_ALGORITHMS } from '../keys/jwt/config.ts'
import type { OidcConfig } from './config.ts'

interface ProviderMetadata {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  jwks_uri: string
  end_session_endpoint?: string
}

export type OidcResult<T> = { ok: true; value: T } | { ok: false; reason: string }

const FETCH_TIMEOUT_MS = 10_000
const RETRY_AFTER_FAILURE_MS = 10_000

export class OidcClient {
  private metadata?: ProviderMetadata
  private keys?: JWTVerifyGetKey
  private discovery?: Promise<OidcResult<ProviderMetadata>>
  private lastFailure?: { at: number; reason: string }

  constructor(private readonly config: OidcConfig & { issuer: string; client_id: string; client_secret: string }) {}

  /** The provider's configuration, read once; after a failure, read again at most every 10 s. */
  async provider(): Promise<OidcResult<ProviderMetadata>> {
    if (this.metadata) return { ok: true, value: this.metadata }
    if (this.lastFailure && Date.now() - this.lastFailure.at < RETRY_AFTER_FAILURE_MS) return { ok: false, reason: this.lastFailure.reason }
    this.discovery ??= this.discover().finally(() => {
      this.discovery = undefined
    })
    return this.discovery
  }

  private async discover(): Promise<OidcResult<ProviderMetadata>> {
    const url = `${this.config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
    try {
      const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } })
      if (!response.ok) throw new Error(`${url} answered ${response.status}`)
      const doc = (await response.json()) as Partial<ProviderMetadata>
      if (doc.issuer !== this.config.issuer) throw new Error(`${url} names the issuer ${JSON.stringify(doc.issuer)}, not ${this.config.issuer}`)
      for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
        if (typeof doc[field] !== 'string' || !/^https?:\/\//.test(doc[field])) throw new Error(`${url} has no ${field}`)
      }
      const { createRemoteJWKSet } = await loadJose()
      this.metadata = doc as ProviderMetadata
      this.keys = createRemoteJWKSet(new URL(this.metadata.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS })
      return { ok: true, value: this.metadata }
    } catch (error) {
      const reason = `the OpenID provider ${this.config.issuer} cannot be discovered: ${(error as Error).message}`
      this.lastFailure = { at: Date.now(), reason }
      return { ok: false, reason }
    }
  }

  authorizationUrl(provider: ProviderMetadata, login: { state: string; nonce: string; verifier: string; redirectUri: string }): string {
    const url = new URL(provider.authorization_endpoint)
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.config.client_id,
      redirect_uri: login.redirectUri,
      scope: this.config.scopes.join(' '),
      state: login.state,
      nonce: login.nonce,
      code_challenge: pkceChallenge(login.verifier),
      code_challenge_method: 'S256',
    }).toString()
    return url.toString()
  }

  /** The code for tokens, and the ID token's verified claims. */
  async exchange(code: string, login: { nonce: string; verifier: string; redirectUri: string }): Promise<OidcResult<{ claims: JWTPayload; idToken: string }>> {
    const provider = await this.provider()
    if (!provider.ok) return provider
    let idToken: unknown
    try {
      const response = await fetch(provider.value.token_endpoint, {
        method: 'POST',
        redirect: 'error',
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(this.config.client_id)}:${encodeURIComponent(this.config.client_secret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: login.redirectUri, code_verifier: login.verifier }),
      })
      const body = (await response.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown; error_description?: unknown }
      if (!response.ok) return { ok: false, reason: `the token endpoint answered ${response.status} ${String(body.error ?? '')} ${String(body.error_description ?? '')}`.trim() }
      idToken = body.id_token
    } catch (error) {
      return { ok: false, reason: `the token endpoint cannot be reached: ${(error as Error).message}` }
    }
    if (typeof idToken !== 'string') return { ok: false, reason: 'the token endpoint answered no id_token' }
    try {
      const { jwtVerify } = await loadJose()
      const { payload } = await jwtVerify(idToken, this.keys!, {
        issuer: this.config.issuer,
        audience: this.config.client_id,
        algorithms: [...JWT_ALGORITHMS],
        clockTolerance: 30,
        requiredClaims: ['exp', 'sub', 'nonce'],
      })
      if (payload.nonce !== login.nonce) return { ok: false, reason: 'the ID token does not carry this sign-in’s nonce' }
      return { ok: true, value: { claims: payload, idToken } }
    } catch (error) {
      return { ok: false, reason: `the ID token was refused: ${(error as Error).message}` }
    }
  }

  /** The provider's end-session URL for RP-initiated logout, when it has one. */
  async endSessionUrl(postLogoutRedirectUri: string): Promise<string | undefined> {
    const provider = await this.provider()
    if (!provider.ok || !provider.value.end_session_endpoint) return undefined
    const url = new URL(provider.value.end_session_endpoint)
    url.searchParams.set('client_id', this.config.client_id)
    url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri)
    return url.toString()
  }
}

function pkceChallenge(verifier: string): string {
  return new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
}

export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url')
}
