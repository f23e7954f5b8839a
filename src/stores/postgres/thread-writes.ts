/**
 * @module PostgreSQL's half of the write thread (../write-thread-worker.ts): audit and usage batches encoded for
 * COPY (a search vector and a line of escaped fields per entry) and sent on the thread's own connections. On the
 * thread serving requests that work cost 6-13 µs per entry (docs/scale-out.md, "Performance"). Retention is not
 * done here: it drops partitions, which costs the gateway nothing.
 */
import type { ThreadWrites } from '../write-path/thread-protocol.ts'
import { PostgresAuditStore } from './audit-log.ts'
import { connectPostgres, isConnectionError, type PostgresSettings } from './client.ts'
import { postgresUsageStore } from './usage.ts'

/** Connections of the thread: an audit and a usage batch may be stored at the same time. */
const THREAD_CONNECTIONS = 2

export function openThreadWrites(settings: PostgresSettings): ThreadWrites {
  const sql = connectPostgres({ ...settings, poolSize: Math.min(settings.poolSize, THREAD_CONNECTIONS) })
  const audit = new PostgresAuditStore(sql)
  const usage = postgresUsageStore(sql)
  return {
    writeAudit: (rows) => audit.writeBatch(rows),
    writeUsage: (records) => usage.writeBatch(records),
    failure(error) {
      const { code, errno, message } = error as { code?: string; errno?: string | number; message?: string }
      return { error: [code, errno, message ?? String(error)].filter((p) => p !== undefined && p !== '').join(' '), unreachable: isConnectionError(error) }
    },
  }
}
