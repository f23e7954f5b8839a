/**
 * @module Retention of rows that live for a bounded time (audit entries, Responses threads): rows older than the
 * window are deleted on a timer, off the request path, a small batch per transaction with a pause between
 * batches, so a large backlog never holds the database (and the event loop) for long. Under the stores' lease, so
 * with several replicas (or workers) one of them deletes.
 */
import type { Logger } from '../log/logger.ts'
import type { Lease } from './types.ts'

export interface RetentionOptions {
  /** The job's name: its lease, and its log lines' `job`. */
  job: string
  /** What the rows are, for the log (`expired <rows> deleted`). */
  rows: string
  /** 0 keeps everything (unless `ownExpiry`). */
  retentionDays: number
  /** The rows carry their own expiry time (files): `deleteOlderThan` deletes what expired by now; `retentionDays` is not read. */
  ownExpiry?: boolean
  intervalMs?: number
  batchSize?: number
  /** Pause between two delete batches. */
  pauseMs?: number
  now?: () => number
  /** Several replicas share one database: only the one holding the job's lease deletes. */
  lease?: Lease
}

/** Where the rows are deleted: up to `batch` rows older than `cutoffMs` (epoch ms), resolving to how many. */
export interface ExpiringRows {
  deleteOlderThan(cutoffMs: number, batch: number): Promise<number>
}

const DAY_MS = 86_400_000

export class Retention {
  private timer: ReturnType<typeof setInterval> | undefined
  private running: Promise<number> | undefined
  private stopped = false
  private readonly intervalMs: number
  private readonly batchSize: number
  private readonly pauseMs: number
  private readonly now: () => number

  constructor(
    private readonly store: ExpiringRows,
    private readonly options: RetentionOptions,
    private readonly log: Logger,
  ) {
    this.intervalMs = options.intervalMs ?? 10 * 60_000
    this.batchSize = options.batchSize ?? 1000
    this.pauseMs = options.pauseMs ?? 20
    this.now = options.now ?? Date.now
  }

  get enabled(): boolean {
    return this.options.ownExpiry === true || this.options.retentionDays > 0
  }

  /** Runs once soon after start, then every interval. */
  start(): void {
    if (!this.enabled || this.timer) return
    this.stopped = false
    const first = setTimeout(() => void this.runOnce(), Math.min(5_000, this.intervalMs))
    first.unref?.()
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs)
    this.timer.unref?.()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    this.timer = undefined
    await this.running
  }

  /** Deletes every row older than the window, batch by batch; resolves to how many. */
  runOnce(): Promise<number> {
    if (!this.enabled) return Promise.resolve(0)
    const lease = this.options.lease
    const run = lease ? () => lease.runExclusive(this.options.job, () => this.deleteExpired()).then((n) => n ?? 0) : () => this.deleteExpired()
    this.running ??= run().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async deleteExpired(): Promise<number> {
    const { job, rows, retentionDays } = this.options
    const cutoff = this.options.ownExpiry ? this.now() : this.now() - retentionDays * DAY_MS
    let total = 0
    try {
      for (;;) {
        const n = await this.store.deleteOlderThan(cutoff, this.batchSize)
        total += n
        if (n < this.batchSize || this.stopped) break
        await Bun.sleep(this.pauseMs)
      }
    } catch (err) {
      this.log.error({ err, job }, `deleting expired ${rows} failed; retrying at the next interval`)
    }
    if (total > 0) this.log.info({ deleted: total, ...(this.options.ownExpiry ? {} : { retention_days: retentionDays }), job }, `expired ${rows} deleted`)
    return total
  }
}
