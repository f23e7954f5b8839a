/**
 * @module The managed keys a request is checked against: an in-memory snapshot (SHA-256 → record) loaded from
 * the KeyStore and refreshed in the background (src/stores/snapshot.ts), so no request waits on the database and
 * an outage never turns a valid key into a 401. Writes go through here and update the snapshot before the admin
 * call returns, so a created, changed or revoked key takes effect on the very next request here, and the change
 * feed makes every other replica reload within a second.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore } from '../stores/types.ts'
import { generateKeySecret, hashKeySecret, redactKeySecret } from './key-secret.ts'

export interface NewApiKey {
  name: string
  description: string
  userPath: string | null
  allowedModels: readonly string[] | null
  dashboardEnabled: boolean
  expiresAt: string | null
  createdBy: string
}

export type KeyStatus = 'active' | 'expired' | 'revoked'

export type UpdateResult = { kind: 'updated'; record: ApiKeyRecord } | { kind: 'not_found' } | { kind: 'revoked'; record: ApiKeyRecord }

export interface KeyDirectoryOptions {
  /** Tells other replicas about writes here, and this one about theirs. */
  changes?: Changes
  /** Background reload of the snapshot, a backstop for lost change messages. */
  refreshSeconds?: number
  /** Retry interval while the snapshot could not be loaded at all. */
  retrySeconds?: number
  now?: () => number
}

export function keyStatus(record: ApiKeyRecord, now: number): KeyStatus {
  if (record.revokedAt !== null) return 'revoked'
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return 'expired'
  return 'active'
}

const storeUnavailable = (err: unknown) =>
  err instanceof GatewayError ? err : gatewayErrors.unavailable('The key store is unavailable; try again shortly.', 'key_store_unavailable')

export class KeyDirectory {
  private byHash = new Map<string, ApiKeyRecord>()
  private byId = new Map<string, ApiKeyRecord>()
  private loaded = false
  private activeKeys = 0
  private readonly snapshot: Snapshot<ApiKeyRecord[]>
  private readonly changes: Changes | undefined
  readonly now: () => number

  constructor(
    private readonly store: KeyStore,
    private readonly log: Logger,
    options: KeyDirectoryOptions = {},
  ) {
    this.now = options.now ?? Date.now
    this.changes = options.changes
    this.snapshot = new Snapshot({
      name: 'keys',
      load: () => this.store.loadAll(),
      apply: (records) => this.merge(records),
      changes: options.changes,
      topic: 'keys',
      log: this.log,
      reconcileMs: (options.refreshSeconds ?? 30) * 1000,
      retryMs: (options.retrySeconds ?? 2) * 1000,
    })
  }

  /** Loads the snapshot and keeps it fresh. Resolves after the first attempt, whether or not it succeeded. */
  async start(): Promise<void> {
    await this.snapshot.start()
  }

  stop(): void {
    this.snapshot.stop()
  }

  /** Whether the copy in memory is current (false while the store is unreachable). */
  snapshotStatus() {
    return this.snapshot.status()
  }

  /** False until the snapshot was loaded once; until then a managed key's status is unknown. */
  isLoaded(): boolean {
    return this.loaded
  }

  /** The record behind a secret's hash, revoked and expired ones included (the caller tells them apart). */
  lookup(keyHash: string): ApiKeyRecord | undefined {
    return this.byHash.get(keyHash)
  }

  /** True once the key is revoked here (by this process, or by another one through the change feed); a Map lookup. */
  isRevoked(id: string): boolean {
    const record = this.byId.get(id)
    return record !== undefined && record.revokedAt !== null
  }

  /** True when at least one key is not revoked; decides whether /v1 may run open without a master key. */
  hasActiveKeys(): boolean {
    return this.activeKeys > 0
  }

  /** Reloads from the store; false when it could not be read (the last snapshot stays). */
  refresh(): Promise<boolean> {
    return this.snapshot.refresh()
  }

  /** Merges a loaded set: a key known here that the store lacks or holds older is kept. */
  private merge(records: readonly ApiKeyRecord[]): void {
    const merged = new Map(this.byId)
    for (const record of records) {
      const known = merged.get(record.id)
      merged.set(record.id, known ? newer(known, record) : record)
    }
    this.replace(merged.values())
    this.loaded = true
  }

  async create(input: NewApiKey): Promise<{ record: ApiKeyRecord; secret: string }> {
    const secret = generateKeySecret()
    const at = new Date(this.now()).toISOString()
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      ...input,
      keyHash: hashKeySecret(secret),
      redactedKey: redactKeySecret(secret),
      createdAt: at,
      updatedAt: at,
      revokedAt: null,
    }
    try {
      await this.store.insert(record)
    } catch (err) {
      throw storeUnavailable(err)
    }
    this.put(record)
    await this.changes?.publish('keys')
    return { record, secret }
  }

  async update(id: string, changes: ApiKeyChanges): Promise<UpdateResult> {
    try {
      const current = await this.store.get(id)
      if (!current) return { kind: 'not_found' }
      if (current.revokedAt !== null) return { kind: 'revoked', record: current }
      const record = await this.store.update(id, changes, new Date(this.now()).toISOString())
      if (!record) {
        const again = await this.store.get(id)
        return again ? { kind: 'revoked', record: again } : { kind: 'not_found' }
      }
      this.put(record)
      await this.changes?.publish('keys')
      return { kind: 'updated', record }
    } catch (err) {
      throw storeUnavailable(err)
    }
  }

  /**
   * Revokes for good. The snapshot is updated before the store: should the write fail, the key is already
   * refused on this instance (and stays refused across refreshes) while the caller gets a 503 to retry.
   */
  async revoke(id: string): Promise<{ record: ApiKeyRecord; changed: boolean } | undefined> {
    const at = new Date(this.now()).toISOString()
    const known = this.byId.get(id)
    if (known && known.revokedAt === null) this.put({ ...known, revokedAt: at, updatedAt: at })
    let result: { record: ApiKeyRecord; changed: boolean } | undefined
    try {
      result = await this.store.revoke(id, at)
    } catch (err) {
      throw storeUnavailable(err)
    }
    if (result) this.put(result.record)
    if (result?.changed) await this.changes?.publish('keys')
    return result
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    try {
      return await this.store.get(id)
    } catch (err) {
      throw storeUnavailable(err)
    }
  }

  async list(query: ApiKeyListQuery): Promise<ApiKeyPage> {
    try {
      return await this.store.list(query)
    } catch (err) {
      throw storeUnavailable(err)
    }
  }

  private put(record: ApiKeyRecord): void {
    const known = this.byId.get(record.id)
    const next = known ? newer(known, record) : record
    this.byId.set(next.id, next)
    this.byHash.set(next.keyHash, next)
    this.activeKeys += (next.revokedAt === null ? 1 : 0) - (known?.revokedAt === null ? 1 : 0)
  }

  private replace(records: Iterable<ApiKeyRecord>): void {
    const byHash = new Map<string, ApiKeyRecord>()
    const byId = new Map<string, ApiKeyRecord>()
    let active = 0
    for (const r of records) {
      byHash.set(r.keyHash, r)
      byId.set(r.id, r)
      if (r.revokedAt === null) active++
    }
    this.byHash = byHash
    this.byId = byId
    this.activeKeys = active
  }
}

/** The later version of one key; a revocation is never undone by an older copy, and the first one counts. */
function newer(a: ApiKeyRecord, b: ApiKeyRecord): ApiKeyRecord {
  const later = b.updatedAt >= a.updatedAt ? b : a
  const revokedAt = a.revokedAt !== null && b.revokedAt !== null ? (a.revokedAt < b.revokedAt ? a.revokedAt : b.revokedAt) : (a.revokedAt ?? b.revokedAt)
  return later.revokedAt === revokedAt ? later : { ...later, revokedAt }
}
