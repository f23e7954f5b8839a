/**
 * @module The managed keys a request is checked against: an in-memory snapshot (SHA-256 → record) loaded from
 * the KeyStore and refreshed in the background (src/stores/snapshot.ts), so no request waits on the database and
 * an outage never turns a valid key into a 401. Writes go through here and update the snapshot before the admin
 * call returns, so a created, changed or revoked key takes effect on the very next request here, and the change
 * feed makes every other replica reload within a second.
 */
import type { AdminRole } from '../admin/roles.ts'
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { ApiKeyChanges, ApiKeyListQuery, ApiKeyPage, ApiKeyRecord, KeyStore, RevokedKeys } from '../stores/types.ts'
import { generateKeySecret, hashKeySecret, redactKeySecret } from './key-secret.ts'

export { keyStatus } from './key-status.ts'

export interface NewApiKey {
  name: string
  description: string
  userPath: string | null
  allowedModels: readonly string[] | null
  role: AdminRole | null
  expiresAt: string | null
  createdBy: string
}

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
    let inserted: Awaited<ReturnType<KeyStore['insert']>>
    try {
      inserted = await this.store.insert(record, { liveCreator: true })
    } catch (err) {
      throw storeUnavailable(err)
    }
    // The creating key was revoked (on another replica, a moment ago): it is refused like any revoked key.
    if (inserted === 'creator_revoked') throw gatewayErrors.unauthenticated()
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
   * Revokes for good, with every key it created (transitively, in the store's one transaction). The snapshot is
   * updated before the store: should the write fail, the keys are already refused on this instance (and stay
   * refused across refreshes) while the caller gets a 503 to retry; the retry revokes what is left.
   */
  async revoke(id: string): Promise<RevokedKeys | undefined> {
    const at = new Date(this.now()).toISOString()
    for (const known of [this.byId.get(id), ...this.descendantsHere(id)]) {
      if (known && known.revokedAt === null) this.put({ ...known, revokedAt: at, updatedAt: at })
    }
    let result: RevokedKeys | undefined
    try {
      result = await this.store.revoke(id, at)
    } catch (err) {
      throw storeUnavailable(err)
    }
    if (!result) return undefined
    this.put(result.record)
    for (const record of result.cascaded) this.put(record)
    if (result.changed || result.cascaded.length > 0) await this.changes?.publish('keys')
    return result
  }

  /** The key by id as the snapshot holds it (no store read). */
  known(id: string): ApiKeyRecord | undefined {
    return this.byId.get(id)
  }

  /** The key that created this one, when a key did (from the snapshot; undefined for the master key or a person). */
  creatorOf(record: Pick<ApiKeyRecord, 'createdBy'>): ApiKeyRecord | undefined {
    return this.byId.get(record.createdBy)
  }

  /** The keys this one created that are not revoked (from the snapshot). */
  childrenOf(id: string): ApiKeyRecord[] {
    return [...this.byId.values()].filter((k) => k.createdBy === id && k.revokedAt === null)
  }

  /** Every key below `id` in the snapshot (created by it, by those, …). */
  private descendantsHere(id: string): ApiKeyRecord[] {
    const children = new Map<string, ApiKeyRecord[]>()
    for (const k of this.byId.values()) {
      const siblings = children.get(k.createdBy)
      if (siblings) siblings.push(k)
      else children.set(k.createdBy, [k])
    }
    const found: ApiKeyRecord[] = []
    const seen = new Set([id])
    for (const queue = [id]; queue.length > 0; ) {
      for (const child of children.get(queue.pop()!) ?? []) {
        if (seen.has(child.id)) continue
        seen.add(child.id)
        found.push(child)
        queue.push(child.id)
      }
    }
    return found
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
