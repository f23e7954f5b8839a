/**
 * @module Who is calling: the master key or a managed key, from `Authorization: Bearer` or `x-api-key`. One
 * SHA-256 of the presented key serves both the constant-time master comparison and the snapshot lookup, so a
 * failure costs one digest and one map lookup. Shared by /v1 (plugins/api-key-auth) and /admin (admin-auth).
 * With a throttle, an address that keeps guessing is refused before its credential is looked at, and every
 * failure is recorded against its address (credential-throttle.ts). `authenticateRequest` also takes an identity
 * token (a JWT from a configured issuer, jwt/verifier.ts) through the same throttle; /admin takes keys only.
 */
import { timingSafeEqual } from 'node:crypto'
import { adminGrantOf, MASTER_GRANT } from '../admin/grants.ts'
import { presentedKey } from './presented-key.ts'
import { type JwtVerifier, looksLikeJwt } from './jwt/verifier.ts'
import type { Principal } from '../pipeline/context.ts'
import type { ApiKeyRecord } from '../stores/types.ts'
import type { CredentialThrottle } from './credential-throttle.ts'
import type { KeyDirectory } from './key-directory.ts'
import { keyDigest, MAX_PRESENTED_KEY_LENGTH } from './key-secret.ts'

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired'

export type Authentication =
  | { kind: 'authenticated'; principal: Principal; key?: ApiKeyRecord }
  | { kind: 'rejected'; failure: AuthFailure; reason: string }
  /** The caller's address is throttled: the credential was not checked at all. */
  | { kind: 'throttled'; retryAfterSeconds: number; reason: string }
  /** The answer is truly unknown: the key snapshot was never loaded. */
  | { kind: 'unavailable'; reason: string }

export interface KeyAuthenticatorOptions {
  /** Refuses addresses that keep failing and records every failure; none in unit tests that do not need it. */
  throttle?: CredentialThrottle
  /**
   * The operator allowed /v1 without keys (GATEWAY_ALLOW_OPEN): a request without a key is anonymous while there is
   * neither a master key nor an active managed key. Otherwise a request without a key is always refused.
   */
  allowOpen?: boolean
  /** Identity tokens accepted instead of a managed key (by `authenticateRequest`). */
  tokens?: JwtVerifier
}

export const ANONYMOUS: Principal = Object.freeze({ method: 'none', id: 'anonymous' })
export const MASTER: Principal = Object.freeze({ method: 'master_key', id: 'master', admin: MASTER_GRANT })
const MASTER_AUTHENTICATED: Extract<Authentication, { kind: 'authenticated' }> = Object.freeze({ kind: 'authenticated', principal: MASTER })

const NO_ADDRESS = () => ''

/** A refusal as checked: `credential` tells the throttle which credential failed (a digest prefix, or a kind). */
type Refusal = { kind: 'rejected'; failure: AuthFailure; reason: string; credential: string }
type Checked = Exclude<Authentication, { kind: 'rejected' }> | Refusal

export class KeyAuthenticator {
  private readonly masterDigest: Buffer | undefined
  private readonly throttle: CredentialThrottle | undefined
  private readonly allowOpen: boolean
  private readonly tokens: JwtVerifier | undefined

  constructor(
    masterKey: string | undefined,
    private readonly keys: KeyDirectory,
    options: KeyAuthenticatorOptions = {},
  ) {
    this.masterDigest = masterKey ? keyDigest(masterKey) : undefined
    this.throttle = options.throttle
    this.allowOpen = options.allowOpen ?? false
    this.tokens = options.tokens?.enabled ? options.tokens : undefined
  }

  get hasMasterKey(): boolean {
    return this.masterDigest !== undefined
  }

  /**
   * `clientAddress` is read only when the throttle needs it (some address is throttled, or this check failed).
   * While the caller's address is throttled nothing is checked: a right guess gets the same refusal as a wrong one.
   */
  authenticate(headers: Headers, clientAddress: () => string = NO_ADDRESS): Authentication {
    const verdict = this.throttle?.verdict(clientAddress)
    if (verdict?.throttled) {
      return { kind: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds, reason: 'too many failed authentications from this address; the credential was not checked' }
    }
    const result = this.check(headers)
    if (result.kind !== 'rejected') return result
    this.throttle?.recordFailure(clientAddress(), result.credential)
    return { kind: 'rejected', failure: result.failure, reason: result.reason }
  }

  /**
   * `authenticate`, and a bearer shaped like a JWT is verified as an identity token when issuers are configured:
   * that may wait for the issuer's key set (fetched once, then cached), so it answers a promise then.
   */
  authenticateRequest(headers: Headers, clientAddress: () => string = NO_ADDRESS): Authentication | Promise<Authentication> {
    const presented = this.tokens ? presentedKey(headers) : undefined
    if (!this.tokens || presented?.kind !== 'key' || !looksLikeJwt(presented.key)) return this.authenticate(headers, clientAddress)
    const verdict = this.throttle?.verdict(clientAddress)
    if (verdict?.throttled) {
      return { kind: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds, reason: 'too many failed authentications from this address; the credential was not checked' }
    }
    const token = presented.key
    return this.tokens.verify(token).then((result): Authentication => {
      if (result.kind === 'verified') return { kind: 'authenticated', principal: result.principal }
      if (result.kind === 'unavailable') return result
      this.throttle?.recordFailure(clientAddress(), keyDigest(token).toString('hex').slice(0, 16))
      return { kind: 'rejected', failure: result.failure, reason: result.reason }
    })
  }

  private check(headers: Headers): Checked {
    const presented = presentedKey(headers)
    if (presented.kind === 'missing') return this.withoutKey()
    if (presented.kind === 'malformed') return { kind: 'rejected', failure: 'malformed', reason: presented.reason, credential: 'malformed' }
    if (presented.key.length > MAX_PRESENTED_KEY_LENGTH) return { kind: 'rejected', failure: 'malformed', reason: 'API key is too long', credential: 'malformed' }

    const digest = keyDigest(presented.key)
    if (this.masterDigest && timingSafeEqual(digest, this.masterDigest)) return MASTER_AUTHENTICATED
    if (!this.keys.isLoaded()) return { kind: 'unavailable', reason: 'API key snapshot not loaded' }

    // A map lookup by hash leaks nothing useful through timing: the caller cannot steer the hash.
    const keyHash = digest.toString('hex')
    // The throttle remembers failures by this prefix of the digest: enough to tell one credential from another.
    const credential = keyHash.slice(0, 16)
    const key = this.keys.lookup(keyHash)
    if (!key) return { kind: 'rejected', failure: 'unknown', reason: 'unknown API key', credential }
    if (key.revokedAt !== null) return { kind: 'rejected', failure: 'revoked', reason: `API key ${key.id} was revoked at ${key.revokedAt}`, credential }
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= this.keys.now()) {
      return { kind: 'rejected', failure: 'expired', reason: `API key ${key.id} expired at ${key.expiresAt}`, credential }
    }
    return { kind: 'authenticated', key, principal: principalOf(key, keyHash) }
  }

  private withoutKey(): Checked {
    const missing: Refusal = { kind: 'rejected', failure: 'missing', reason: 'no API key presented', credential: 'missing' }
    if (this.masterDigest || !this.allowOpen) return missing
    if (!this.keys.isLoaded()) return { kind: 'unavailable', reason: 'API key snapshot not loaded (needed to know whether /v1 is open)' }
    return this.keys.hasActiveKeys() ? missing : { kind: 'authenticated', principal: ANONYMOUS }
  }
}

export function principalOf(key: ApiKeyRecord, keyHash: string): Principal {
  return {
    method: 'managed_key',
    id: key.id,
    keyId: key.id,
    keyHash,
    allowedModels: key.allowedModels ?? undefined,
    userPath: key.userPath ?? undefined,
    admin: adminGrantOf(key),
  }
}
