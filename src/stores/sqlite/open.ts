/**
 * @module The embedded SQLite backend as one unit: one database file, its migrations, every store on it, and the
 * write thread that inserts audit entries and usage records off the thread serving requests. Counters, the
 * response cache and the change feed are in-process, or Redis with `REDIS_URL` (src/stores/shared-caches.ts); the
 * lease is the in-process one. With GATEWAY_WORKERS several processes serve one file: open.ts then gives each
 * worker its primary's counters, change feed and lease, and `options.primary.writes` replaces the write thread
 * with the primary's one writer of the file (sqlite/shared-writes.ts).
 */
import { resolve } from 'node:path'
import { createAuditWriter } from '../write-path/audit-writer.ts'
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import { createUsageWriter } from '../write-path/usage-writer.ts'
import { StoreEvents } from '../batch-events.ts'
import { MemoryLease } from '../memory/lease.ts'
import { sharedCaches } from '../shared-caches.ts'
import type { StoreOptions } from '../open.ts'
import type { Stores } from '../types.ts'
import { SqliteKeyStore } from './api-keys.ts'
import { SqliteAuditStore } from './audit-log.ts'
import { sqliteBatchStore } from './batches.ts'
import { openSqlite } from './client.ts'
import { sqliteLimitStore } from './limits.ts'
import { sqliteMcpStore } from './mcp.ts'
import { migrateSqlite } from './migrate.ts'
import { sqliteResponseThreadStore } from './response-threads.ts'
import { sqliteFileStore } from './files.ts'
import { sqliteUploadStore } from './uploads.ts'
import { sqlitePriceStore, sqliteUsageStore } from './usage.ts'
import { sqliteWorkflowStore } from './workflows.ts'
import { startWriteThread, type BatchWrites } from '../write-path/write-thread.ts'
import type { WriteThreadTarget } from '../write-thread-worker.ts'

export async function openSqliteStores(config: GatewayConfig, log: Logger, options: StoreOptions = {}): Promise<Stores> {
  const path = config.database.path
  const db = openSqlite(path)
  migrateSqlite(db)
  const audit = new SqliteAuditStore(db)
  const usage = sqliteUsageStore(db)
  const local: BatchWrites = {
    writeAudit: (rows) => audit.writeBatch(rows),
    writeUsage: (records) => usage.writeBatch(records),
    deleteAuditOlderThan: (cutoffMs, batch) => audit.deleteOlderThan(cutoffMs, batch),
    close: () => {},
  }
  // Audit entries and usage records are inserted on a thread of their own (an in-memory database cannot be shared with one).
  // In a worker of GATEWAY_WORKERS the primary owns the one writer of the file.
  const writes =
    options.primary?.writes ??
    (path === ':memory:' ? local : startWriteThread({ backend: 'sqlite', path: resolve(path) } satisfies WriteThreadTarget, local, log, options.writeThreadUrl))
  const caches = sharedCaches(config)
  const events = new StoreEvents()
  return {
    events,
    keys: new SqliteKeyStore(db),
    workflows: sqliteWorkflowStore(db),
    limits: sqliteLimitStore(db),
    prices: sqlitePriceStore(db),
    audit,
    // Retention deletes where the writes go (the write thread), not on the connection serving the admin API's reads.
    auditExpiry: writes.deleteAuditOlderThan && { deleteOlderThan: (cutoffMs, batch) => writes.deleteAuditOlderThan!(cutoffMs, batch) },
    auditSink: createAuditWriter(config, { writeBatch: (rows) => events.time('audit', 'sqlite', () => writes.writeAudit(rows)) }, log),
    usage,
    usageSink: createUsageWriter(config, { writeBatch: (records) => events.time('usage', 'sqlite', () => writes.writeUsage(records)) }, log),
    responseThreads: sqliteResponseThreadStore(db),
    files: sqliteFileStore(db),
    uploads: sqliteUploadStore(db),
    mcp: sqliteMcpStore(db),
    batches: sqliteBatchStore(db),
    counters: caches.counters,
    responseCache: caches.responseCache,
    changes: caches.changes,
    lease: new MemoryLease(),
    async close() {
      writes.close()
      await caches.close()
      db.close()
    },
  }
}
