/**
 * @module The usage sink every backend puts in front of its batch inserts: a bounded queue of records written in
 * batches off the request path, retried when a batch fails, drained on shutdown.
 */
import type { Logger } from '../log/logger.ts'
import type { UsageSink } from '../stores/types.ts'
import type { UsageRecord } from './record.ts'

const BATCH = 1000
const FLUSH_MS = 500
const CAPACITY = 50_000

/** Stores records in one transaction; ids already stored are skipped. */
export interface UsageBatchWriter {
  writeBatch(records: readonly UsageRecord[]): Promise<void>
}

export class UsageWriter implements UsageSink {
  private queue: UsageRecord[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> | undefined
  private dropped = 0

  constructor(
    private readonly batches: UsageBatchWriter,
    private readonly log: Logger,
  ) {}

  record(record: UsageRecord): void {
    if (this.queue.length >= CAPACITY) {
      // Usage is also in every audit entry; past this bound the dedicated table loses the record, and says so.
      this.dropped++
      return
    }
    this.queue.push(record)
    if (this.queue.length >= BATCH) this.flushSoon(0)
    else this.flushSoon(FLUSH_MS)
  }

  private flushSoon(delay: number): void {
    if (this.timer && delay > 0) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.flush()
    }, delay)
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing
    if (this.queue.length === 0) return
    const batch = this.queue.splice(0, BATCH)
    this.writing = this.batches
      .writeBatch(batch)
      .catch((err) => {
        this.queue.unshift(...batch)
        this.log.error({ err }, 'usage batch failed; will retry')
        this.flushSoon(FLUSH_MS * 4)
      })
      .finally(() => {
        this.writing = undefined
      })
    await this.writing
    if (this.queue.length > 0) this.flushSoon(0)
  }

  async drain(): Promise<void> {
    clearTimeout(this.timer)
    for (let i = 0; i < 100 && this.queue.length > 0; i++) await this.flush()
    if (this.dropped > 0) this.log.warn({ dropped: this.dropped }, 'usage records dropped while the queue was full')
  }
}
