/**
 * @module Audit retention (LOGGING_RETENTION_DAYS; 0 keeps everything): entries older than the window are
 * deleted on a timer, a small batch per transaction with a pause between batches, so a large backlog never holds
 * the database (and the event loop) for long.
 */
import type { Logger } from '../log/logger.ts'
import type { AuditReader, Lease } from '../stores/types.ts'

export interface RetentionOptions {
  retentionDays: number
  intervalMs?: number
  batchSize?: number
  /** Pause between two delete batches. */
  pauseMs?: number
  now?: () => number
  /** Several replicas share one log: only the one holding this lease deletes. */
  lease?: Lease
}

const DAY_MS = 86_400_000

export class AuditRetention {
  private timer: ReturnType<typeof setInterval> | undefined
  private running: Promise<number> | undefined
  private stopped = false
  private readonly intervalMs: number
  private readonly batchSize: number
  private readonly pauseMs: number
  private readonly now: () => number

  constructor(
    private readonly store: Pick<AuditReader, 'deleteOlderThan'>,
    private readonly options: RetentionOptions,
    private readonly log: Logger,
  ) {
    this.intervalMs = options.intervalMs ?? 10 * 60_000
    this.batchSize = options.batchSize ?? 1000
    this.pauseMs = options.pauseMs ?? 20
    this.now = options.now ?? Date.now
  }

  get enabled(): boolean {
    return this.options.retentionDays > 0
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

  /** Deletes every entry older than the window, batch by batch; resolves to how many. */
  runOnce(): Promise<number> {
    if (!this.enabled) return Promise.resolve(0)
    const lease = this.options.lease
    const run = lease ? () => lease.runExclusive('audit-retention', () => this.deleteExpired()).then((n) => n ?? 0) : () => this.deleteExpired()
    this.running ??= run().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async deleteExpired(): Promise<number> {
    const cutoff = this.now() - this.options.retentionDays * DAY_MS
    let total = 0
    try {
      for (;;) {
        const n = await this.store.deleteOlderThan(cutoff, this.batchSize)
        total += n
        if (n < this.batchSize || this.stopped) break
        await Bun.sleep(this.pauseMs)
      }
    } catch (err) {
      this.log.error({ err }, 'audit retention failed; retrying at the next interval')
    }
    if (total > 0) this.log.info({ deleted: total, retention_days: this.options.retentionDays }, 'expired audit entries deleted')
    return total
  }
}
