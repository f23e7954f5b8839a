/**
 * @module The audit writer: requests hand over entries (`record`, never waits, never throws); each becomes its
 * storage row (the audit domain's codec, src/audit/record.ts) in the queue (queue.ts: batched transactions off
 * the hot path, spill files, memory bound, poison entries dead-lettered, drain at shutdown). Each backend puts it
 * in front of its batch inserts (`createAuditWriter`).
 *
 * Encoded by the batch: `record` queues the captured entry as it is (references), and the queue's loop encodes a
 * whole batch in one go just before storing it (bench/audit-cost.ts: about 2.5 µs less on the request thread per
 * entry than encoding each inside its request). Only the batch being filled waits unencoded: once a batch is
 * queued, further entries are encoded at once, so a writer that falls behind holds a few strings per entry, not
 * object graphs, and a batch crosses to the write thread packed (packed-rows.ts), with no JSON step.
 */
import type { AuditLogEntry } from '../../audit/entry.ts'
import { auditEntryBytes, auditRowBytes, auditRowId, encodeAuditEntry, type AuditRow, type BodyTexts } from '../../audit/record.ts'
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import type { AuditSink } from '../types.ts'
import { SpillingWriter, type RowBatchWriter, type SpillingWriterOptions, type SpillingWriterState, type SpillingWriterStats } from './queue.ts'
import { SpillFiles, spillDirFor } from './spill.ts'

export type AuditWriterOptions = SpillingWriterOptions

export interface AuditWriterStats extends SpillingWriterStats {
  /** Authentication failures over the flood limit: counted, not stored. */
  suppressed: number
}

/** Stores encoded rows in one transaction, skipping ids already stored; resolves to how many were new. */
export type AuditBatchWriter = RowBatchWriter<AuditRow>

const AUDIT_ROWS = { name: 'audit', noun: 'audit entries', id: auditRowId, bytes: auditRowBytes }

/** An entry as the request captured it, queued until its batch is encoded. */
class CapturedAuditEntry {
  constructor(
    readonly entry: AuditLogEntry,
    readonly bodyTexts: BodyTexts | undefined,
  ) {}
}

export class AuditWriter extends SpillingWriter<AuditRow, CapturedAuditEntry> implements AuditSink {
  private suppressed = 0
  private readonly deadLetters: SpillFiles

  constructor(store: AuditBatchWriter, spill: SpillFiles, options: AuditWriterOptions, log: Logger) {
    super(store, spill, options, log, AUDIT_ROWS)
    this.deadLetters = spill
  }

  record(entry: AuditLogEntry, bodyTexts?: BodyTexts): void {
    this.counters.recorded++
    this.enqueue(new CapturedAuditEntry(entry, bodyTexts))
  }

  protected override isItem(value: AuditRow | CapturedAuditEntry): value is CapturedAuditEntry {
    return value instanceof CapturedAuditEntry
  }

  protected override itemBytes({ entry, bodyTexts }: CapturedAuditEntry): number {
    return auditEntryBytes(entry, bodyTexts)
  }

  protected override encodeItem({ entry, bodyTexts }: CapturedAuditEntry): AuditRow | undefined {
    try {
      return encodeAuditEntry(entry, bodyTexts)
    } catch (err) {
      // Only an entry JSON cannot serialise gets here (a cycle, a BigInt): keep what can be kept, for a person.
      this.counters.failed++
      this.lastError = err instanceof Error ? err.message : String(err)
      try {
        this.deadLetters.deadLetter([unencodable(entry, err)])
      } catch (deadLetterError) {
        this.log.error({ err: deadLetterError, audit_entry_id: entry.id }, 'audit entry could not be encoded nor dead-lettered')
      }
      return undefined
    }
  }

  recordSuppressed(): void {
    this.suppressed++
  }

  stats(): AuditWriterStats {
    return { ...this.writerStats(), suppressed: this.suppressed }
  }

  protected override reportStats(): object {
    return this.stats()
  }

  protected override reportKey(): string {
    return String(this.suppressed)
  }
}

/** The dead-letter line of an entry JSON cannot serialise. */
function unencodable(entry: AuditLogEntry, err: unknown): string {
  return JSON.stringify({ id: entry.id, timestamp: entry.timestamp, unserializable: String(err) })
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
