/**
 * @module Who is calling: the master key or a managed key, from `Authorization: Bearer` or `x-api-key`. One
 * SHA-256 of the presented key serves both the constant-time master comparison and the snapshot lookup, so a
 * failure costs one digest and one map lookup. Shared by /v1 (plugins/api-key-auth) and /admin (admin-auth).
 */
import { timingSafeEqual } from 'node:crypto'
import { adminGrantOf, MASTER_GRANT } from '../admin/grants.ts'
import { presentedKey } from './presented-key.ts'
import type { Principal } from '../pipeline/context.ts'
import type { ApiKeyRecord } from '../stores/types.ts'
import type { KeyDirectory } from './key-directory.ts'
import { keyDigest, MAX_PRESENTED_KEY_LENGTH } from './key-secret.ts'

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired'

export type Authentication =
  | { kind: 'authenticated'; principal: Principal; key?: ApiKeyRecord }
  | { kind: 'rejected'; failure: AuthFailure; reason: string }
  /** The answer is truly unknown: the key snapshot was never loaded. */
  | { kind: 'unavailable'; reason: string }

export const ANONYMOUS: Principal = Object.freeze({ method: 'none', id: 'anonymous' })
export const MASTER: Principal = Object.freeze({ method: 'master_key', id: 'master', admin: MASTER_GRANT })
const MASTER_AUTHENTICATED: Authentication = Object.freeze({ kind: 'authenticated', principal: MASTER })

export class KeyAuthenticator {
  private readonly masterDigest: Buffer | undefined

  constructor(
    masterKey: string | undefined,
    private readonly keys: KeyDirectory,
  ) {
    this.masterDigest = masterKey ? keyDigest(masterKey) : undefined
  }

  get hasMasterKey(): boolean {
    return this.masterDigest !== undefined
  }

  /**
   * Without a master key and without any managed key the gateway runs open (start-up warns): a request without a
   * key is anonymous. Once a managed key exists, every request needs one.
   */
  authenticate(headers: Headers): Authentication {
    const presented = presentedKey(headers)
    if (presented.kind === 'missing') return this.withoutKey()
    if (presented.kind === 'malformed') return { kind: 'rejected', failure: 'malformed', reason: presented.reason }
    if (presented.key.length > MAX_PRESENTED_KEY_LENGTH) return { kind: 'rejected', failure: 'malformed', reason: 'API key is too long' }

    const digest = keyDigest(presented.key)
    if (this.masterDigest && timingSafeEqual(digest, this.masterDigest)) return MASTER_AUTHENTICATED
    if (!this.keys.isLoaded()) return { kind: 'unavailable', reason: 'API key snapshot not loaded' }

    // A map lookup by hash leaks nothing useful through timing: the caller cannot steer the hash.
    const keyHash = digest.toString('hex')
    const key = this.keys.lookup(keyHash)
    if (!key) return { kind: 'rejected', failure: 'unknown', reason: 'unknown API key' }
    if (key.revokedAt !== null) return { kind: 'rejected', failure: 'revoked', reason: `API key ${key.id} was revoked at ${key.revokedAt}` }
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= this.keys.now()) {
      return { kind: 'rejected', failure: 'expired', reason: `API key ${key.id} expired at ${key.expiresAt}` }
    }
    return { kind: 'authenticated', key, principal: principalOf(key, keyHash) }
  }

  private withoutKey(): Authentication {
    const missing: Authentication = { kind: 'rejected', failure: 'missing', reason: 'no API key presented' }
    if (this.masterDigest) return missing
    if (!this.keys.isLoaded()) return { kind: 'unavailable', reason: 'API key snapshot not loaded (needed to know whether /v1 is open)' }
    return this.keys.hasActiveKeys() ? missing : { kind: 'authenticated', principal: ANONYMOUS }
  }
}

function principalOf(key: ApiKeyRecord, keyHash: string): Principal {
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
