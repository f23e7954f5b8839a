/**
 * @module Connections to servers that want each caller's own OAuth token: one per (server, credential owner), made
 * when the owner first calls and only when a credential is stored for it, closed after `idleMs` unused or when
 * more than `max` are open (least recently used first). The stored credential is looked at again when a
 * connection is used after `recheckMs`: one revoked (or renewed) on another replica is noticed within that time;
 * on the replica that revoked it, at once. Each uses the owner's token through the SDK's OAuth provider interface
 * (./token-provider.ts), which also refreshes it.
 */
import type { McpCatalog, ServerEntry } from '../catalog.ts'
import type { McpHttpServerConfig } from '../config.ts'
import type { UpstreamConnection } from '../upstream/connection.ts'
import type { CredentialOwner, UpstreamCredentials } from './credentials.ts'
import { StoredTokenProvider } from './token-provider.ts'

interface Pooled {
  server: string
  connection: UpstreamConnection
  lastUsed: number
  checkedAt: number
  /** When the tokens it was made with were stored: other tokens stored since mean a new connection. */
  obtainedAt: number
}

export class OwnerConnections {
  private readonly pool = new Map<string, Pooled>()
  private readonly sweeper: ReturnType<typeof setInterval>

  constructor(
    private readonly catalog: McpCatalog,
    private readonly credentials: UpstreamCredentials,
    private readonly callbackUrl: () => string,
    private readonly max = 500,
    private readonly idleMs = 10 * 60_000,
    private readonly recheckMs = 5_000,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, idleMs))
    this.sweeper.unref?.()
    catalog.onServerStopped((server) => this.closeServer(server))
  }

  /** The owner's connection, or undefined when no credential is stored for it (the caller must authorize). */
  async get(entry: ServerEntry, owner: CredentialOwner): Promise<UpstreamConnection | undefined> {
    const key = `${entry.name}|${owner.kind}|${owner.id}`
    const now = Date.now()
    const pooled = this.pool.get(key)
    if (pooled && now - pooled.checkedAt < this.recheckMs) {
      pooled.lastUsed = now
      this.pool.delete(key)
      this.pool.set(key, pooled)
      return pooled.connection
    }
    const stored = await this.credentials.tokens(entry.name, owner)
    if (pooled) {
      if (stored && stored.obtainedAt <= pooled.obtainedAt) {
        pooled.checkedAt = pooled.lastUsed = now
        return pooled.connection
      }
      await this.close(key)
    }
    if (!stored) return undefined
    if (this.pool.size >= this.max) await this.close(this.pool.keys().next().value!)
    const config = entry.config as McpHttpServerConfig
    const connection = this.catalog.connect(entry.name, config, (lists, capabilities) => this.catalog.ownerLists(entry.name, lists, capabilities), {
      authProvider: new StoredTokenProvider(entry.name, config, owner, this.credentials, this.callbackUrl()),
      label: key,
    })
    this.pool.set(key, { server: entry.name, connection, lastUsed: now, checkedAt: now, obtainedAt: stored.obtainedAt })
    connection.start()
    return connection
  }

  /** The owner's credential changed (authorized anew, revoked): its next call connects afresh. */
  async closeOwner(server: string, owner: CredentialOwner): Promise<void> {
    await this.close(`${server}|${owner.kind}|${owner.id}`)
  }

  /** Closes every connection of the server (its credentials changed, or the server was replaced). */
  async closeServer(server: string): Promise<void> {
    await Promise.all([...this.pool].filter(([, p]) => p.server === server).map(([key]) => this.close(key)))
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper)
    await Promise.all([...this.pool.keys()].map((key) => this.close(key)))
  }

  get size(): number {
    return this.pool.size
  }

  private async close(key: string): Promise<void> {
    const pooled = this.pool.get(key)
    if (!pooled) return
    this.pool.delete(key)
    await pooled.connection.stop()
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs
    for (const [key, p] of this.pool) if (p.lastUsed < cutoff) void this.close(key)
  }
}
