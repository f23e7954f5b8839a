/**
 * @module Usage bookkeeping for the whole process: the price table (defaults, YAML and admin overrides), the
 * usage sink requests hand records to, and the sums the admin API reads.
 */
import type { Logger } from '../log/logger.ts'
import { Snapshot } from '../stores/snapshot.ts'
import type { PriceStore, Stores, UsageReader, UsageSink } from '../stores/types.ts'
import { PriceTable, type ModelPrice } from './pricing.ts'
import type { UsageRecord } from './record.ts'

export class UsageService {
  readonly prices: PriceTable
  /** Price overrides in memory, reloaded when any replica changes one. */
  private readonly priceSnapshot: Snapshot<Record<string, ModelPrice>>

  constructor(
    private readonly stores: Pick<Stores, 'usageSink' | 'usage' | 'prices' | 'changes'>,
    declaredPrices: Record<string, ModelPrice>,
    log: Logger,
  ) {
    this.prices = new PriceTable(declaredPrices)
    // Admin overrides win over YAML ones, which win over the bundled defaults.
    this.priceSnapshot = new Snapshot({
      name: 'prices',
      load: () => stores.prices.all(),
      apply: (stored) => this.prices.setOverrides({ ...declaredPrices, ...stored }),
      changes: stores.changes,
      topic: 'prices',
      log,
    })
  }

  get reader(): UsageReader {
    return this.stores.usage
  }

  get overrides(): PriceStore {
    return this.stores.prices
  }

  /** Loads the price overrides (first call: and keeps them current); `changed` tells the other replicas. */
  async loadPrices(changed = false): Promise<void> {
    const ok = await (this.priceSnapshot.status().loaded ? this.priceSnapshot.refresh() : this.priceSnapshot.start())
    if (!ok) throw new Error(`could not load the price overrides: ${this.priceSnapshot.status().lastError}`)
    if (changed) await this.stores.changes.publish('prices')
  }

  priceSnapshotStatus() {
    return this.priceSnapshot.status()
  }

  stopPrices(): void {
    this.priceSnapshot.stop()
  }

  /** Hands the record to the sink; never waits. */
  record(record: UsageRecord): void {
    this.stores.usageSink.record(record)
  }

  /** Resolves when every record handed over so far is stored. */
  flush(): Promise<void> {
    return this.stores.usageSink.flush()
  }

  /** The usage writer's counters (queued, lost), for /ready and the metrics. */
  writerStats() {
    return this.stores.usageSink.stats()
  }

  /** Replays usage records an earlier process spilled. */
  startWriter(): void {
    this.stores.usageSink.start()
  }

  /** Writes what is queued and replays spill files for at most `deadlineMs`; the rest is spilled for the next start. */
  drain(deadlineMs?: number): Promise<void> {
    return this.stores.usageSink.drain(deadlineMs)
  }
}
