/**
 * @module The usage sink every backend puts in front of its batch inserts: usage records go through the same
 * write machinery as audit entries (queue.ts), so they are written in batches off the request
 * path and, while the database refuses writes, spilled to files of their own (`usage-spill…` in the audit spill
 * folder) and replayed when it takes them again, at start-up and at shutdown. A transient error never costs a
 * record; a record the database refuses alone (a constraint violation) goes to `usage-dead-letter.jsonl`, the
 * others of its batch are stored. The queue holds at most `maxQueued` records (`logging.usage_queue_size`);
 * past it records spill; when the spill folder refuses writes too, they are held in memory (up to 200,000, or
 * the queue size if larger: a record is a few hundred bytes), and past that a record is lost: counted, logged at once by id, shown by `/ready` and the metrics. Usage is also in every
 * audit entry.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import type { UsageRecord } from '../../usage/record.ts'
import type { UsageSink } from '../types.ts'
import { SpillingWriter, type RowKind, type SpillingWriterState } from './queue.ts'
import { SpillFiles, spillDirFor, usageSpillFormat } from './spill.ts'

const BATCH = 1000
const FLUSH_MS = 500
const DRAIN_MS = 10_000
export const DEFAULT_USAGE_QUEUE_SIZE = 200_000

/** Stores records in one transaction; ids already stored are skipped. */
export interface UsageBatchWriter {
  writeBatch(records: readonly UsageRecord[]): Promise<void>
}

export interface UsageWriterStats {
  queued: number
  max_queued: number
  written: number
  batch_failures: number
  /** Records that failed alone with a non-transient error (in the dead-letter file). */
  rejected: number
  /** Records sent to a spill file (queue full, or the deadline of a drain passed), and those since stored. */
  spilled: number
  replayed: number
  spill_files: number
  /** Records held in memory while neither the database nor the spill folder takes writes. */
  held: number
  /** Records past the memory bound while the store and the spill folder refused writes. */
  lost: number
  /** True for a minute after a record was lost. */
  losing: boolean
  /** How long the oldest record not yet stored has waited (queue, memory or spill files); 0 when none waits. */
  lag_ms: number
  state: SpillingWriterState
}

// Records are about the same size: the byte budgets count records (one each).
const USAGE_ROWS: RowKind<UsageRecord> = { name: 'usage', noun: 'usage records', id: (r) => r.id, bytes: () => 1 }

export class UsageWriter extends SpillingWriter<UsageRecord> implements UsageSink {
  constructor(
    batches: UsageBatchWriter,
    log: Logger,
    private readonly maxQueued = DEFAULT_USAGE_QUEUE_SIZE,
    spill: SpillFiles<UsageRecord> = new SpillFiles(join(tmpdir(), `gateway-usage-spill-${crypto.randomUUID()}`), usageSpillFormat),
  ) {
    super(
      {
        async writeBatch(records) {
          await batches.writeBatch(records)
          return records.length
        },
      },
      spill,
      { capacity: maxQueued, maxBytes: maxQueued, memoryMaxBytes: Math.max(maxQueued, DEFAULT_USAGE_QUEUE_SIZE), batchSize: BATCH, flushIntervalMs: FLUSH_MS },
      log,
      USAGE_ROWS,
    )
  }

  record(record: UsageRecord): void {
    this.counters.recorded++
    this.enqueue(record)
  }

  /** One pass now (admin reads call it first): writes what is queued unless the store is failing; never waits out a backoff. */
  override flush(): Promise<void> {
    return this.writeNow()
  }

  override drain(deadlineMs = DRAIN_MS): Promise<void> {
    return super.drain(deadlineMs)
  }

  stats(): UsageWriterStats {
    const s = this.writerStats()
    return {
      queued: s.queue_depth,
      max_queued: this.maxQueued,
      written: s.written,
      batch_failures: s.batch_failures,
      rejected: s.failed,
      spilled: s.spilled,
      replayed: s.replayed,
      spill_files: s.spill_files,
      held: s.held,
      lost: s.lost,
      losing: s.state === 'losing',
      lag_ms: s.lag_ms,
      state: s.state,
    }
  }
}

/** The usage writer with its spill files in the audit spill folder (`usage-spill…`), sized by config.logging. */
export function createUsageWriter(config: GatewayConfig, batches: UsageBatchWriter, log: Logger): UsageWriter {
  return new UsageWriter(batches, log, config.logging.usage_queue_size, new SpillFiles(spillDirFor(config), usageSpillFormat))
}
