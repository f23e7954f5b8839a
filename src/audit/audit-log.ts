/**
 * @module The audit log as one service the composition root owns: the backend's reader and sink (src/stores),
 * the reads every backend shares (conversation walk, stats buckets) and retention (under the stores' lease).
 */
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { GatewayConfig } from '../config/schema.ts'
import type { Logger } from '../log/logger.ts'
import type { AuditReader, AuditSink, Stores } from '../stores/types.ts'
import { auditConversation, type ConversationReader } from './conversation.ts'
import type { AuditConversation, AuditStats, AuditStatsQuery } from './entry.ts'
import { AuditRetention } from './retention.ts'
import { SpillFiles } from './spill.ts'
import { auditStats } from './stats.ts'
import { AuditWriter, type AuditBatchWriter } from './writer.ts'

export interface AuditLog {
  reader: AuditReader
  writer: AuditSink
  retention: AuditRetention
  /** The thread around an entry as `who` may read it; undefined when there is no such entry, or not for `who`. */
  conversation(anchorId: string, limit: number, who: ConversationReader): Promise<AuditConversation | undefined>
  stats(query: AuditStatsQuery): Promise<AuditStats>
  /** Replays spill files left by an earlier process and starts retention. */
  start(): void
  /** Stops retention and drains the writer (queue and spill files). */
  close(): Promise<void>
}

/** `<database>.audit-spill` beside the database file; a fresh temporary folder for an in-memory database or a server database without `audit_spill_dir`. */
export function spillDirFor(config: GatewayConfig): string {
  if (config.logging.audit_spill_dir) return resolve(config.logging.audit_spill_dir)
  if (config.database.url || config.database.path === ':memory:') return join(tmpdir(), `gateway-audit-spill-${crypto.randomUUID()}`)
  return `${resolve(config.database.path)}.audit-spill`
}

/** The queued, spilling writer every backend puts in front of its batch inserts (config.logging sizes it). */
export function createAuditWriter(config: GatewayConfig, batches: AuditBatchWriter, log: Logger): AuditWriter {
  return new AuditWriter(
    batches,
    new SpillFiles(spillDirFor(config)),
    {
      capacity: config.logging.audit_queue_size,
      maxBytes: config.logging.audit_queue_max_bytes,
      batchSize: config.logging.audit_batch_size,
      flushIntervalMs: config.logging.audit_flush_interval_ms,
      memoryMaxBytes: config.logging.audit_memory_max_bytes,
    },
    log,
  )
}

export function createAuditLog(config: GatewayConfig, stores: Pick<Stores, 'audit' | 'auditSink' | 'auditExpiry' | 'lease'>, log: Logger): AuditLog {
  const reader = stores.audit
  const writer = stores.auditSink
  const retention = new AuditRetention(stores.auditExpiry ?? reader, { retentionDays: config.logging.retention_days, lease: stores.lease }, log)
  return {
    reader,
    writer,
    retention,
    conversation: (anchorId, limit, who) => auditConversation(reader, anchorId, limit, who),
    stats: (query) => auditStats(reader, query),
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
