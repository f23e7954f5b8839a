/**
 * @module Usage bookkeeping for the whole process: the price table (defaults, YAML and admin overrides) and a
 * bounded queue of usage records written in batches, off the request path, drained on shutdown.
 */
import type { Logger } from '../log/logger.ts'
import type { Changes } from '../stores/changes.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { UsageStore } from '../stores/types.ts'
import { PriceTable, type ModelPrice } from './pricing.ts'
import type { UsageRecord } from './record.ts'

const BATCH = 1000
const FLUSH_MS = 500
const CAPACITY = 50_000

export class UsageService {
  readonly prices: PriceTable
  private queue: UsageRecord[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> | undefined
  private dropped = 0
  /** Price overrides in memory, reloaded when any replica changes one. */
  private readonly priceSnapshot: Snapshot<Record<string, ModelPrice>>

  constructor(
    readonly store: UsageStore,
    private readonly declaredPrices: Record<string, ModelPrice>,
    private readonly log: Logger,
    private readonly changes?: Changes,
  ) {
    this.prices = new PriceTable(declaredPrices)
    // Admin overrides win over YAML ones, which win over the bundled defaults.
    this.priceSnapshot = new Snapshot({
      name: 'prices',
      load: () => store.priceOverrides(),
      apply: (stored) => this.prices.setOverrides({ ...declaredPrices, ...stored }),
      changes,
      topic: 'prices',
      log,
    })
  }

  /** Loads the price overrides (first call: and keeps them current); `changed` tells the other replicas. */
  async loadPrices(changed = false): Promise<void> {
    const ok = await (this.priceSnapshot.status().loaded ? this.priceSnapshot.refresh() : this.priceSnapshot.start())
    if (!ok) throw new Error(`could not load the price overrides: ${this.priceSnapshot.status().lastError}`)
    if (changed) await this.changes?.publish('prices')
  }

  stopPrices(): void {
    this.priceSnapshot.stop()
  }

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
    this.writing = this.store
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
