/**
 * @module Picks the backend for this process: PostgreSQL when `DATABASE_URL` (YAML `database.url`) is set, the
 * embedded SQLite file (`GATEWAY_DB_PATH`) otherwise. One of the composition roots of src/stores, the only files
 * outside a backend folder that name one (src/stores/layers.test.ts keeps it so): this one for a serving process,
 * primary-stores.ts for the primary of GATEWAY_WORKERS, write-thread-worker.ts for the write thread, and
 * shared-caches.ts for counters, cache and change feed (in-process or Redis).
 */
import type { GatewayConfig } from '../config/schema.ts'
import type { Logger } from '../log/logger.ts'
import { StoreConfigError } from './errors.ts'
import { openSqliteStores } from './sqlite/open.ts'
import type { Stores } from './types.ts'
import type { PrimaryLink } from '../workers/link.ts'

export { StoreConfigError }

export interface StoreOptions {
  /** Script of the SQLite write thread; the compiled binary needs it given relative to its entry (src/main.ts). */
  writeThreadUrl?: string
  /**
   * In a worker of `GATEWAY_WORKERS` (src/workers): what the workers of one machine share through their primary.
   * Counters always (unless Redis shares them); on SQLite also the change feed, the lease and the one writer.
   */
  primary?: PrimaryLink
}

export async function openStores(config: GatewayConfig, log: Logger, options: StoreOptions = {}): Promise<Stores> {
  const { primary } = options
  if (config.database.url) {
    // Loaded only for a database server: the PostgreSQL backend and drizzle's pg-core (about 90 modules) are
    // resident memory that a gateway on the embedded database never uses.
    const { openPostgresStores } = await import('./postgres/open.ts')
    const stores = await openPostgresStores(config, log, options)
    return primary && !config.redis.url ? { ...stores, counters: primary.counters } : stores
  }
  // Without this, `GATEWAY_DB_PATH=postgres://…` silently created a directory called `postgres:`.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(config.database.path)) {
    throw new StoreConfigError(
      `GATEWAY_DB_PATH (database.path) is a file path for the embedded SQLite database, but '${config.database.path.replace(/\/\/[^@/]*@/, '//***@')}' looks like a URL; set DATABASE_URL (database.url) to use a database server.`,
    )
  }
  const stores = await openSqliteStores(config, log, options)
  if (!primary) return stores
  return config.redis.url ? { ...stores, lease: primary.lease } : { ...stores, counters: primary.counters, changes: primary.changes, lease: primary.lease }
}
