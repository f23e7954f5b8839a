/**
 * @module The audit log as one service the composition root owns: the store (read by the admin API), the writer
 * (fed by the audit-sink plugin and the security event recorder), the spill files and retention.
 */
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { GatewayConfig } from '../config/schema.ts'
import type { Logger } from '../log/logger.ts'
import type { AuditStore } from '../stores/types.ts'
import { AuditRetention } from './retention.ts'
import { SpillFiles } from './spill.ts'
import { AuditWriter } from './writer.ts'

export interface AuditLog {
  store: AuditStore
  writer: AuditWriter
  retention: AuditRetention
  spill: SpillFiles
  /** Replays spill files left by an earlier process and starts retention. */
  start(): void
  /** Stops retention and drains the writer (queue and spill files). */
  close(): Promise<void>
}

/** `<database>.audit-spill` beside the database file; a fresh temporary folder for an in-memory database. */
export function spillDirFor(config: GatewayConfig): string {
  if (config.logging.audit_spill_dir) return resolve(config.logging.audit_spill_dir)
  if (config.database.path === ':memory:') return join(tmpdir(), `gateway-audit-spill-${crypto.randomUUID()}`)
  return `${resolve(config.database.path)}.audit-spill`
}

/** `writes` stores batches (the composition root hands in the write thread); reads go to `store`. */
export function createAuditLog(config: GatewayConfig, store: AuditStore, writes: Pick<AuditStore, 'writeBatch'>, log: Logger): AuditLog {
  const spill = new SpillFiles(spillDirFor(config))
  const writer = new AuditWriter(
    writes,
    spill,
    {
      capacity: config.logging.audit_queue_size,
      maxBytes: config.logging.audit_queue_max_bytes,
      batchSize: config.logging.audit_batch_size,
      flushIntervalMs: config.logging.audit_flush_interval_ms,
    },
    log,
  )
  const retention = new AuditRetention(store, { retentionDays: config.logging.retention_days }, log)
  return {
    store,
    writer,
    retention,
    spill,
    start() {
      writer.start()
      retention.start()
    },
    async close() {
      await retention.stop()
      await writer.drain()
    },
  }
}
