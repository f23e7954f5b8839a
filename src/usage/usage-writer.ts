/**
 * @module The usage sink every backend puts in front of its batch inserts: a bounded queue of records written in
 * batches off the request path, drained on shutdown.
 *
 * A failed batch stays queued and is retried with backoff. A transient error (full disk, locked database,
 * unreachable server: `isTransientWriteError`) never costs a record; after a failure with any other error (a
 * constraint violation, a malformed record) the batch is written record by record at once: the others are stored,
 * and a record that fails alone is logged whole and set aside (`rejected`). When every record fails alone the
 * fault is the database's, not theirs: nothing is set aside and the batch is retried. The queue holds at most `maxQueued` records (`logging.usage_queue_size`); past it a record is
 * lost: counted, logged at once, shown by `/ready` and the metrics. Usage is also in every audit entry.
 */
import type { Logger } from '../log/logger.ts'
import { isTransientWriteError } from '../stores/errors.ts'
import type { UsageSink } from '../stores/types.ts'
import type { UsageRecord } from './record.ts'

const BATCH = 1000
const FLUSH_MS = 500
const RETRY_BASE_MS = 100
const RETRY_MAX_MS = 5000
/** Losses are logged at once, then at most once per this interval with the count so far. */
const LOSS_LOG_MS = 1000
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
  /** Records that failed alone with a non-transient error (logged whole). */
  rejected: number
  /** Records over `max_queued` while the store refused writes. */
  lost: number
  /** True for a minute after a record was lost. */
  losing: boolean
}

export class UsageWriter implements UsageSink {
  private queue: UsageRecord[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  /** The last flush: each waits for the one before, so two never write the same head batch. */
  private writing: Promise<void> = Promise.resolve()
  private failures = 0
  private lastTransient = true
  private readonly counters = { written: 0, batch_failures: 0, rejected: 0, lost: 0 }
  private lastLoss = 0
  private lossLogged = 0
  private lossUnlogged = 0
  private lossTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly batches: UsageBatchWriter,
    private readonly log: Logger,
    private readonly maxQueued = DEFAULT_USAGE_QUEUE_SIZE,
  ) {}

  record(record: UsageRecord): void {
    if (this.queue.length >= this.maxQueued) {
      this.lose(record)
      return
    }
    this.queue.push(record)
    this.flushSoon(this.queue.length >= BATCH ? 0 : FLUSH_MS)
  }

  stats(): UsageWriterStats {
    return { queued: this.queue.length, max_queued: this.maxQueued, ...this.counters, losing: Date.now() - this.lastLoss < 60_000 }
  }

  /** Writes what is queued; stops at the first failure (retried later with backoff). Calls run one after another. */
  flush(): Promise<void> {
    const run = this.writing.then(async () => {
      while (this.queue.length > 0) if (!(await this.writeNext())) return
    })
    this.writing = run.catch(() => {})
    return run
  }

  /** Writes what is queued, retrying with backoff until done or `deadlineMs` passed; says what is left. */
  async drain(deadlineMs = 10_000): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const deadline = Date.now() + deadlineMs
    while (this.queue.length > 0 && Date.now() < deadline) {
      await this.flush()
      if (this.queue.length > 0) await Bun.sleep(Math.min(this.backoff(), Math.max(0, deadline - Date.now())))
    }
    clearTimeout(this.timer)
    this.timer = undefined
    clearTimeout(this.lossTimer)
    this.lossTimer = undefined
    this.logLosses()
    if (this.queue.length > 0)
      this.log.error({ records: this.queue.length, ids: this.queue.map((r) => r.id) }, 'usage records not stored before shutdown (they are in the audit entries)')
  }

  private flushSoon(delay: number): void {
    if (this.timer && delay > 0) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.flush().then(() => {
        if (this.queue.length > 0) this.flushSoon(this.failures > 0 ? this.backoff() : 0)
      })
    }, delay)
    this.timer.unref?.()
  }

  private backoff(): number {
    return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, this.failures - 1))
  }

  /** Writes the head batch; true when it is settled (stored, or its poison records set aside). */
  private async writeNext(): Promise<boolean> {
    const batch = this.queue.slice(0, BATCH)
    try {
      await this.batches.writeBatch(batch)
    } catch (err) {
      this.counters.batch_failures++
      this.failures++
      this.lastTransient = isTransientWriteError(err)
      this.log.error({ err, records: batch.length, failures: this.failures, transient: this.lastTransient }, 'usage batch failed; will retry')
      if (this.lastTransient || !(await this.isolate(batch))) return false
    }
    this.queue.splice(0, batch.length)
    this.counters.written += batch.length
    this.failures = 0
    return true
  }

  /** Writes records one by one; false (retry the batch later) when an error is transient. */
  private async isolate(batch: readonly UsageRecord[]): Promise<boolean> {
    const rejected: UsageRecord[] = []
    for (const record of batch) {
      try {
        await this.batches.writeBatch([record])
      } catch (err) {
        if (isTransientWriteError(err)) return false
        rejected.push(record)
      }
    }
    if (rejected.length === batch.length) return false
    this.counters.rejected += rejected.length
    this.counters.written -= rejected.length
    if (rejected.length > 0) this.log.error({ records: rejected }, 'usage records the store refuses (not a transient error); set aside here')
    return true
  }

  private lose(record: UsageRecord): void {
    this.counters.lost++
    this.lastLoss = Date.now()
    this.lossUnlogged++
    if (Date.now() - this.lossLogged >= LOSS_LOG_MS) this.logLosses(record.id)
    else
      this.lossTimer ??= setTimeout(() => {
        this.lossTimer = undefined
        this.logLosses(record.id)
      }, LOSS_LOG_MS)
  }

  private logLosses(lastId?: string): void {
    if (this.lossUnlogged === 0) return
    this.lossLogged = Date.now()
    this.log.error(
      { records: this.lossUnlogged, lost_total: this.counters.lost, max_queued: this.maxQueued, last_id: lastId },
      'usage records lost: the store refuses writes and the queue is full',
    )
    this.lossUnlogged = 0
  }
}
