/**
 * @module Identity tokens (JWT bearers) from the configured issuers, verified with `jose`: the issuer is chosen by
 * the token's `iss` (exact match, before any key is looked at), its key set is found through its OpenID
 * configuration once and then held by jose's remote key set (cached for `jwks_max_age_seconds`; a `kid` it does
 * not know refetches the set at most once per `refetch_cooldown_seconds`, so a flood of made-up `kid`s costs the
 * issuer one fetch, not one per request). Signature, algorithm (the issuer's list: asymmetric only, so never
 * `none` and never an HMAC keyed with a public key), issuer, audience and expiry (with `leeway_seconds`) are
 * checked before the claims become a principal (claims.ts).
 */
import type { JWTVerifyGetKey } from 'jose'
import { loadJose } from './jose.ts'
import type { AuthFailure } from '../authenticator.ts'
import type { Logger } from '../../log/logger.ts'
import type { Principal } from '../../pipeline/context.ts'
import { principalFromClaims } from './claims.ts'
import type { JwtConfig, JwtIssuerConfig } from './config.ts'

export type TokenCheck =
  | { kind: 'verified'; principal: Principal }
  | { kind: 'rejected'; failure: AuthFailure; reason: string }
  /** The issuer's configuration or key set cannot be had right now: the token was not judged. */
  | { kind: 'unavailable'; reason: string }

/** Three base64url parts, the first a JSON object (`eyJ` is `{"`); the signature may be empty (`alg: none`, refused). */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/
/** Identity tokens with many groups run to a few kilobytes; longer ones are refused before decoding. */
export const MAX_TOKEN_LENGTH = 16 * 1024

export function looksLikeJwt(credential: string): boolean {
  return credential.startsWith('eyJ') && JWT_SHAPE.test(credential)
}

type FetchFunction = (input: string | URL, init?: RequestInit) => Promise<Response>

export interface JwtVerifierOptions {
  /** For tests that count or fail fetches; default the global fetch. */
  fetch?: FetchFunction
}

export class JwtVerifier {
  private readonly issuers: Map<string, TrustedIssuer>

  constructor(
    private readonly config: JwtConfig,
    log: Logger,
    options: JwtVerifierOptions = {},
  ) {
    const fetchFn = options.fetch ?? ((input, init) => fetch(input, init))
    this.issuers = new Map(config.issuers.map((issuer) => [issuer.issuer, new TrustedIssuer(issuer, config, fetchFn, log)]))
  }

  get enabled(): boolean {
    return this.issuers.size > 0
  }

  /** Reads every issuer's OpenID configuration; an issuer that cannot be reached now is tried again when a token needs it. */
  async start(): Promise<void> {
    await Promise.all([...this.issuers.values()].map((issuer) => issuer.keySet()))
  }

  async verify(token: string): Promise<TokenCheck> {
    if (token.length > MAX_TOKEN_LENGTH) return { kind: 'rejected', failure: 'malformed', reason: `the token is longer than ${MAX_TOKEN_LENGTH} characters` }
    const jose = await loadJose()
    let iss: unknown
    try {
      iss = jose.decodeJwt(token).iss
    } catch (error) {
      return { kind: 'rejected', failure: 'malformed', reason: `not a readable JWT: ${(error as Error).message}` }
    }
    const issuer = typeof iss === 'string' ? this.issuers.get(iss) : undefined
    if (!issuer) return { kind: 'rejected', failure: 'unknown', reason: `the token's issuer ${JSON.stringify(String(iss).slice(0, 200))} is not a configured issuer` }

    const keys = await issuer.keySet()
    if (typeof keys === 'string') return { kind: 'unavailable', reason: keys }
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: issuer.config.issuer,
        audience: issuer.config.audience,
        algorithms: issuer.config.algorithms,
        clockTolerance: this.config.leeway_seconds,
        requiredClaims: ['exp'],
      })
      const mapped = principalFromClaims(issuer.config, payload)
      return mapped.ok ? { kind: 'verified', principal: mapped.principal } : { kind: 'rejected', failure: 'unknown', reason: mapped.reason }
    } catch (error) {
      return refusalOf(error, jose.errors)
    }
  }
}

function refusalOf(error: unknown, errors: typeof import('jose').errors): TokenCheck {
  if (error instanceof errors.JWTExpired) return { kind: 'rejected', failure: 'expired', reason: `the token expired (${error.message})` }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return { kind: 'unavailable', reason: `the issuer's key set cannot be read: ${error.message}` }
  if (error instanceof errors.JOSEError) return { kind: 'rejected', failure: 'unknown', reason: `the token was refused: ${error.message} (${error.code})` }
  // Anything else comes from fetching the key set (a refused connection, an HTTP error status).
  return { kind: 'unavailable', reason: `the issuer's key set cannot be read: ${(error as Error).message}` }
}

/** One configured issuer: its key set, found through its OpenID configuration by one discovery at a time. */
class TrustedIssuer {
  private keys?: JWTVerifyGetKey
  private discovery?: Promise<JWTVerifyGetKey | string>
  private lastFailure?: { at: number; reason: string }

  constructor(
    readonly config: JwtIssuerConfig,
    private readonly settings: JwtConfig,
    private readonly fetchFn: FetchFunction,
    private readonly log: Logger,
  ) {}

  /** The key set, or why there is none: after a failed discovery the issuer is asked again only once the cooldown has passed. */
  keySet(): JWTVerifyGetKey | string | Promise<JWTVerifyGetKey | string> {
    if (this.keys) return this.keys
    if (this.discovery) return this.discovery
    if (this.lastFailure && Date.now() - this.lastFailure.at < this.settings.refetch_cooldown_seconds * 1000) return this.lastFailure.reason
    this.discovery = this.discover().finally(() => {
      this.discovery = undefined
    })
    return this.discovery
  }

  private async discover(): Promise<JWTVerifyGetKey | string> {
    try {
      const jwksUri = this.config.jwks_uri ?? (await this.jwksUriFromConfiguration())
      const { createRemoteJWKSet, customFetch } = await loadJose()
      this.keys = createRemoteJWKSet(new URL(jwksUri), {
        timeoutDuration: this.settings.fetch_timeout_ms,
        cooldownDuration: this.settings.refetch_cooldown_seconds * 1000,
        cacheMaxAge: this.settings.jwks_max_age_seconds * 1000,
        [customFetch]: this.fetchFn,
      })
      this.log.info({ issuer: this.config.issuer, jwks_uri: jwksUri }, 'identity token issuer discovered')
      return this.keys
    } catch (error) {
      const reason = `the issuer ${this.config.issuer} cannot be discovered: ${(error as Error).message}`
      this.lastFailure = { at: Date.now(), reason }
      this.log.warn({ issuer: this.config.issuer, err: (error as Error).message }, 'identity token issuer discovery failed')
      return reason
    }
  }

  private async jwksUriFromConfiguration(): Promise<string> {
    const url = `${this.config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
    const response = await this.fetchFn(url, { redirect: 'error', signal: AbortSignal.timeout(this.settings.fetch_timeout_ms), headers: { accept: 'application/json' } })
    if (!response.ok) throw new Error(`${url} answered ${response.status}`)
    const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown }
    // OpenID Connect Discovery: the document must name exactly the issuer it was fetched for.
    if (document.issuer !== this.config.issuer) throw new Error(`${url} names the issuer ${JSON.stringify(document.issuer)}, not ${this.config.issuer}`)
    if (typeof document.jwks_uri !== 'string' || !/^https?:\/\//.test(document.jwks_uri)) throw new Error(`${url} has no jwks_uri`)
    return document.jwks_uri
  }
}
