/**
 * @module SQLite's one writer for the workers of `GATEWAY_WORKERS` (src/stores/primary-stores.ts): the primary
 * migrates the file before any worker opens it and runs the write thread that stores every worker's audit and
 * usage batches, which arrive encoded and go to the thread as they are.
 */
import { resolve } from 'node:path'
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import type { SharedWrites } from '../primary-stores.ts'
import { type BatchWrites, startWriteThread } from '../write-path/write-thread.ts'
import type { WriteThreadTarget } from '../write-thread-worker.ts'
import { SqliteAuditStore } from './audit-log.ts'
import { openSqlite } from './client.ts'
import { migrateSqlite } from './migrate.ts'
import { sqliteUsageStore } from './usage.ts'

export function openSqliteSharedWrites(config: GatewayConfig, log: Logger, writeThreadUrl: string | undefined): SharedWrites {
  if (config.database.path === ':memory:') throw new Error('GATEWAY_WORKERS needs a database file that every worker can open (GATEWAY_DB_PATH is :memory:).')
  const db = openSqlite(config.database.path)
  migrateSqlite(db)
  const audit = new SqliteAuditStore(db)
  const usage = sqliteUsageStore(db)
  // The thread's fallback, should it fail to start or die: the primary's own connection.
  const local: BatchWrites = { writeAudit: (rows) => audit.writeBatch(rows), writeUsage: (records) => usage.writeBatch(records), close: () => {} }
  const writes = startWriteThread({ backend: 'sqlite', path: resolve(config.database.path) } satisfies WriteThreadTarget, local, log, writeThreadUrl)
  return {
    writeEncodedAudit: (rows) => writes.writeEncodedAudit(rows),
    writeEncodedUsage: (json) => writes.writeEncodedUsage(json),
    close() {
      writes.close()
      db.close()
    },
  }
}
