/**
 * @module The audit log as one service the composition root owns: the backend's reader and sink (src/stores),
 * the reads every backend shares (conversation walk, stats buckets) and retention (under the stores' lease).
 */
import type { GatewayConfig } from '../config/schema.ts'
import type { Logger } from '../log/logger.ts'
import type { AuditReader, AuditSink, Stores } from '../stores/types.ts'
import { auditConversation, type ConversationReader } from './conversation.ts'
import type { AuditConversation, AuditStats, AuditStatsQuery } from './entry.ts'
import { AuditRetention } from './retention.ts'
import { auditStats } from './stats.ts'

export interface AuditLog {
  reader: AuditReader
  writer: AuditSink
  retention: AuditRetention
  /** The thread around an entry as `who` may read it; undefined when there is no such entry, or not for `who`. */
  conversation(anchorId: string, limit: number, who: ConversationReader): Promise<AuditConversation | undefined>
  stats(query: AuditStatsQuery): Promise<AuditStats>
  /** Replays spill files left by an earlier process and starts retention. */
  start(): void
  /** Stops retention and drains the writer (queue and spill files) for at most `deadlineMs`; the rest is spilled. */
  close(deadlineMs?: number): Promise<void>
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
    async close(deadlineMs) {
      const stopBy = deadlineMs === undefined ? undefined : Date.now() + deadlineMs
      await retention.stop()
      await writer.drain(stopBy === undefined ? undefined : Math.max(0, stopBy - Date.now()))
    },
  }
}
