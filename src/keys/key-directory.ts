/**
 * @module The managed keys a request is checked against: an in-memory snapshot (SHA-256 → record) loaded from
 * the KeyStore and refreshed in the background, so no request waits on the database and an outage never turns a
 * valid key into a 401. Writes go through here and update the snapshot before the admin call returns, so a
 * created, changed or revoked key takes effect on the very next request.
 */
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
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
  /** Background reload of the snapshot (picks up changes made by other replicas). */
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
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = false
  private readonly refreshMs: number
  private readonly retryMs: number
  readonly now: () => number

  constructor(
    private readonly store: KeyStore,
    private readonly log: Logger,
    options: KeyDirectoryOptions = {},
  ) {
    this.refreshMs = (options.refreshSeconds ?? 60) * 1000
    this.retryMs = (options.retrySeconds ?? 5) * 1000
    this.now = options.now ?? Date.now
  }

  /** Loads the snapshot and keeps it fresh. Resolves after the first attempt, whether or not it succeeded. */
  async start(): Promise<void> {
    this.stopped = false
    await this.refresh()
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  /** False until the snapshot was loaded once; until then a managed key's status is unknown. */
  isLoaded(): boolean {
    return this.loaded
  }

  /** The record behind a secret's hash, revoked and expired ones included (the caller tells them apart). */
  lookup(keyHash: string): ApiKeyRecord | undefined {
    return this.byHash.get(keyHash)
  }

  /** True when at least one key is not revoked; decides whether /v1 may run open without a master key. */
  hasActiveKeys(): boolean {
    return this.activeKeys > 0
  }

  /** Reloads from the store and merges: a key known here that the store lacks or holds older is kept. */
  async refresh(): Promise<boolean> {
    let records: ApiKeyRecord[]
    try {
      records = await this.store.loadAll()
    } catch (err) {
      this.log.error({ err: (err as Error).message, loaded_before: this.loaded }, 'could not load the API keys; keeping the last snapshot')
      return false
    }
    const merged = new Map(this.byId)
    for (const record of records) {
      const known = merged.get(record.id)
      merged.set(record.id, known ? newer(known, record) : record)
    }
    this.replace(merged.values())
    this.loaded = true
    return true
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

  private schedule(): void {
    if (this.stopped) return
    this.timer = setTimeout(
      async () => {
        await this.refresh()
        this.schedule()
      },
      this.loaded ? this.refreshMs : this.retryMs,
    )
    this.timer.unref?.()
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
