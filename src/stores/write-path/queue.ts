/**
 * @module The queue of the durable write path (src/stores/write-path/), which the audit log and the usage records
 * share: rows are handed over (never waiting) and one background loop writes them in batched transactions,
 * spilling, holding and replaying them when the database refuses writes. audit-writer.ts (audit entries) and
 * usage-writer.ts (usage records) put their domain's row kind in front of it.
 *
 * - Bounded: the queue holds at most `capacity` rows and `maxBytes` of (estimated) row size. Beyond that, rows go
 *   to the spill files (spill.ts) instead of being dropped, and are replayed into the store when the
 *   queue has room again, at start-up, and at shutdown.
 * - Retried: a failed batch stays at the head of the queue and is retried with backoff. A transient error (full
 *   or failing disk, busy or locked database, unreachable server: `isTransientWriteError`) is never a reason to
 *   give up on a row. After a failure with any other error (a constraint violation, a malformed row) the batch
 *   is written row by row at once: a row that fails alone with a non-transient error is poison and goes to the
 *   dead-letter file (counted as `failed`), the others are stored; a transient error on the way stops the
 *   sorting and the batch is retried whole later. When every row fails alone, the fault is the database's
 *   rather than each row's (a schema out of step, say): nothing is dead-lettered and the batch is retried.
 * - Held: when the spill file cannot take rows either (the disk is full), they are held in memory, up to
 *   `memoryMaxBytes`, and written (or spilled) as soon as either recovers. Only past that bound is a row lost:
 *   counted (`lost`), logged at once with its id, and shown by `/ready` and the metrics.
 * - Drained: `drain()` (registered as a shutdown task) writes the queue and replays the spill files; whatever
 *   cannot be written before the deadline is spilled, so the next start stores it.
 * - Encoded late: a kind may queue items (what the request captured, by reference) instead of rows; the loop
 *   encodes a whole batch of them just before storing it (`encodeItem`), off the request's path and in one tight
 *   loop, which costs the thread less per row than encoding each on its own among the request's work. An item
 *   is encoded at once only when it is spilled.
 */
import type { Logger } from '../../log/logger.ts'
import { isTransientWriteError } from '../errors.ts'
import type { SpillFiles, SpillReader } from './spill.ts'

/** What the writer needs to know of a row. */
export interface RowKind<Row> {
  /** `audit` or `usage`: names the counters in the log. */
  name: string
  /** Names rows in log lines (`audit entries`, `usage records`). */
  noun: string
  id(row: Row): string
  /** Estimated bytes in memory, for the queue's and the memory bound's byte budgets. */
  bytes(row: Row): number
}

export interface SpillingWriterOptions {
  capacity: number
  maxBytes: number
  batchSize: number
  flushIntervalMs: number
  /** First retry delay after a failed batch; doubles up to `retryMaxMs`. */
  retryBaseMs?: number
  retryMaxMs?: number
  /** How often the counters are logged when something noteworthy happened. */
  reportIntervalMs?: number
  /** Estimated bytes held in memory when neither the store nor the spill folder takes writes; past it rows are lost. */
  memoryMaxBytes?: number
}

/** `ok`; `spilling` (rows wait in spill files); `holding` (in memory: the spill folder refuses writes too); `losing` (past the memory bound). */
export type SpillingWriterState = 'ok' | 'spilling' | 'holding' | 'losing'

export interface SpillingWriterStats {
  queue_depth: number
  queue_bytes: number
  queue_capacity: number
  queue_max_bytes: number
  /** Rows handed to the writer. */
  recorded: number
  /** Rows committed to the store (from the queue and from spill files). */
  written: number
  /** Rows sent to a spill file because the queue was full (or the deadline of a drain passed). */
  spilled: number
  /** Spilled rows since stored. */
  replayed: number
  /** Rows moved to the dead-letter file: they failed alone while others succeeded. */
  failed: number
  /** Batches that failed and were retried. */
  batch_failures: number
  /** Rows found already stored (replays after a crash). */
  duplicates: number
  spill_files: number
  spill_bytes: number
  /** Rows held in memory because neither the store nor the spill folder took them, and their estimated bytes. */
  held: number
  held_bytes: number
  held_max_bytes: number
  /** Rows lost: past the memory bound while the store and the spill folder both refused (each logged by id). */
  lost: number
  /**
   * How far the writer is behind: the time the oldest row not yet stored has waited (in the queue, held in
   * memory, or in the spill files: those count from when the folder last held nothing, or from start-up for files
   * an earlier process left). 0 when nothing waits.
   */
  lag_ms: number
  state: SpillingWriterState
  last_error: string | null
}

/** What is held in memory by default when the disk refuses writes: 256 MiB of (estimated) row size. */
export const DEFAULT_AUDIT_MEMORY_MAX_BYTES = 256 * 1024 * 1024

/** Stores rows in one transaction, skipping ids already stored; resolves to how many were new. */
export interface RowBatchWriter<Row> {
  writeBatch(rows: readonly Row[]): Promise<number>
}

/** How long `state` says `losing` after the last lost row. */
const LOSING_SHOWN_MS = 60_000
/** Items encoded per turn of the event loop when a batch is encoded (see encodeHeadInSlices). */
const ENCODE_SLICE = 50

/** `Item`: what a kind may queue instead of a row, encoded by the loop (`encodeItem`); rows only by default. */
export class SpillingWriter<Row, Item = never> {
  private queue: (Row | Item)[] = []
  private weights: number[] = []
  /** When each queued row was handed over (Date.now()), for `lag_ms`. */
  private enqueuedAt: number[] = []
  /** Since when rows are held in memory, and since when the spill files hold rows; undefined: none. */
  private heldSince: number | undefined
  private spillingSince: number | undefined
  private queueBytes = 0
  private held: Row[] = []
  private heldWeights: number[] = []
  private heldBytes = 0
  private lastLoss = 0
  private lastFailureTransient = true
  private timer: ReturnType<typeof setTimeout> | undefined
  /** The timer runs the loop at once (a full batch waits), rather than after the flush interval. */
  private timerImmediate = false
  private reportTimer: ReturnType<typeof setInterval> | undefined
  private running: Promise<void> | undefined
  private consecutiveFailures = 0
  private retryAt = 0
  private replay: SpillReader<Row> | undefined
  private replayWanted = false
  private draining = false
  /** When a drain or flush must end (the loop stops taking batches after it); unbounded otherwise. */
  private stopBy = Number.POSITIVE_INFINITY
  protected readonly counters = { recorded: 0, written: 0, spilled: 0, replayed: 0, failed: 0, batch_failures: 0, duplicates: 0, lost: 0 }
  protected lastError: string | null = null
  private reported = ''
  private readonly retryBaseMs: number
  private readonly retryMaxMs: number
  private readonly memoryMaxBytes: number

  constructor(
    private readonly store: RowBatchWriter<Row>,
    private readonly spill: SpillFiles<Row>,
    private readonly options: SpillingWriterOptions,
    protected readonly log: Logger,
    private readonly kind: RowKind<Row>,
  ) {
    this.retryBaseMs = options.retryBaseMs ?? 100
    this.retryMaxMs = options.retryMaxMs ?? 5000
    this.memoryMaxBytes = options.memoryMaxBytes ?? DEFAULT_AUDIT_MEMORY_MAX_BYTES
  }

  /** Replays spill files left by an earlier process and starts the periodic report. */
  start(): void {
    if (this.spill.hasPending()) {
      this.spillingSince ??= Date.now()
      this.requestReplay()
    }
    this.reportTimer ??= setInterval(() => this.report(), this.options.reportIntervalMs ?? 60_000)
    this.reportTimer.unref?.()
  }

  /** Queues a row or an item (or spills it when the queue is full); returns at once. */
  protected enqueue(value: Row | Item): void {
    // Only the batch being filled waits unencoded: behind it the queue holds rows (a few strings, not object graphs).
    const row = this.isItem(value) && this.queue.length >= this.options.batchSize ? this.encodeItem(value) : value
    if (row === undefined) return
    const approxBytes = this.isItem(row) ? this.itemBytes(row) : this.kind.bytes(row as Row)
    const full = this.queue.length >= this.options.capacity || (this.queue.length > 0 && this.queueBytes + approxBytes > this.options.maxBytes)
    if (full) {
      this.spillRows(this.rowsOf([row]))
      this.requestReplay()
      return
    }
    this.queue.push(row)
    this.weights.push(approxBytes)
    this.enqueuedAt.push(Date.now())
    this.queueBytes += approxBytes
    this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs)
  }

  /** True for a queued item not yet encoded (a kind that queues items overrides the three hooks). */
  protected isItem(_value: Row | Item): _value is Item {
    return false
  }

  /** An item's row size, estimated before it is encoded. */
  protected itemBytes(_item: Item): number {
    return 0
  }

  /** The item's row; undefined when it cannot be encoded (the kind has counted it and set it aside). */
  protected encodeItem(_item: Item): Row | undefined {
    return undefined
  }

  writerStats(): SpillingWriterStats {
    const pending = this.spill.pending()
    return {
      queue_depth: this.queue.length,
      queue_bytes: this.queueBytes,
      queue_capacity: this.options.capacity,
      queue_max_bytes: this.options.maxBytes,
      ...this.counters,
      spill_files: pending.files,
      spill_bytes: pending.bytes,
      held: this.held.length,
      held_bytes: this.heldBytes,
      held_max_bytes: this.memoryMaxBytes,
      lag_ms: this.lagMs(pending.files > 0),
      state: Date.now() - this.lastLoss < LOSING_SHOWN_MS ? 'losing' : this.held.length > 0 ? 'holding' : pending.files > 0 ? 'spilling' : 'ok',
      last_error: this.lastError,
    }
  }

  private lagMs(spilling: boolean): number {
    const now = Date.now()
    let oldest = this.enqueuedAt[0] ?? now
    if (this.held.length > 0 && this.heldSince !== undefined) oldest = Math.min(oldest, this.heldSince)
    if (spilling && this.spillingSince !== undefined) oldest = Math.min(oldest, this.spillingSince)
    return now - oldest
  }

  /**
   * Writes everything queued and replays every spill file, until done or `deadlineMs` passed; what remains is
   * spilled for the next start. New entries recorded meanwhile are written too.
   */
  async drain(deadlineMs = 30_000): Promise<void> {
    this.draining = true
    clearTimeout(this.timer)
    this.timer = undefined
    this.replayWanted = this.spill.hasPending()
    try {
      await this.writeAll(Date.now() + deadlineMs)
      if (this.queue.length > 0) {
        this.log.error({ entries: this.queue.length }, `${this.kind.noun}: drain deadline passed; the rest is spilled and stored at the next start`)
        this.spillRows(this.rowsOf(this.take(this.queue.length)))
      }
      if (this.held.length > 0 && !this.spillHeld()) {
        // The process is stopping and neither the store nor the disk takes them: say exactly which.
        const rows = this.held.splice(0)
        this.heldWeights = []
        this.heldBytes = 0
        this.heldSince = undefined
        this.lose(rows, `${this.kind.noun} lost at shutdown: neither the database nor the spill folder took writes`)
      }
    } finally {
      this.replay?.abandon()
      this.replay = undefined
      this.spill.close()
      clearInterval(this.reportTimer)
      this.reportTimer = undefined
      this.draining = false
      this.report(true)
    }
  }

  /** Writes everything queued (and pending replays) until done or `deadlineMs` passed; nothing is spilled. */
  async flush(deadlineMs = 30_000): Promise<void> {
    await this.writeAll(Date.now() + deadlineMs)
  }

  private async writeAll(deadline: number): Promise<void> {
    // The loop checks it between batches: past the deadline only the batch in progress is waited for.
    this.stopBy = deadline
    try {
      while (Date.now() < deadline) {
        await this.running
        if (this.queue.length === 0 && this.held.length === 0 && !this.replayWanted && !this.replay) break
        const wait = this.retryAt - Date.now()
        if (wait > 0) await Bun.sleep(Math.min(wait, deadline - Date.now()))
        await this.run()
      }
      await this.running
    } finally {
      this.stopBy = Number.POSITIVE_INFINITY
    }
  }

  private requestReplay(): void {
    this.replayWanted = true
    this.schedule(this.options.flushIntervalMs)
  }

  private schedule(delayMs: number): void {
    if (this.draining || this.running) return
    const at = Math.max(delayMs, this.retryAt - Date.now(), 0)
    if (this.timer) {
      // A timer already due at once stays (every entry recorded while a full batch waits for it asks again).
      if (at > 0 || this.timerImmediate) return
      clearTimeout(this.timer)
    }
    this.timerImmediate = at === 0
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.run()
    }, at)
    this.timer.unref?.()
  }

  /** One pass of the loop: queued batches first (live traffic), then one replay chunk at a time. */
  private run(): Promise<void> {
    this.running ??= this.loop().finally(() => {
      this.running = undefined
      if (!this.draining && (this.queue.length > 0 || this.held.length > 0 || this.replayWanted || this.replay))
        this.schedule(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs)
    })
    return this.running
  }

  private async loop(): Promise<void> {
    while (Date.now() >= this.retryAt && Date.now() < this.stopBy) {
      this.refillFromHeld()
      if (this.queue.length > 0) {
        if (!(await this.writeQueued())) {
          // The store refuses: move what memory holds to the spill folder if it takes writes again.
          if (this.held.length > 0) this.spillHeld()
          return
        }
      } else if (this.replay || this.replayWanted) {
        if (!(await this.replayChunk())) return
      } else return
      // Let requests run between two transactions.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  private async writeQueued(): Promise<boolean> {
    const batch = await this.encodeHeadInSlices(this.options.batchSize)
    if (await this.write(batch)) {
      this.take(batch.length)
      return true
    }
    if (!this.lastFailureTransient && (await this.isolate(batch))) {
      this.take(batch.length)
      return true
    }
    return false
  }

  /** Replays the next chunk of the oldest spill file, when the queue leaves room for it. */
  private async replayChunk(): Promise<boolean> {
    if (!this.replay) {
      this.replay = this.spill.nextReader()
      this.replayWanted = false
      if (!this.replay) return true
    }
    const chunk = this.replay.read(this.options.batchSize)
    let settled = true
    if (chunk.corrupt.length > 0) {
      try {
        this.spill.deadLetter(chunk.corrupt)
        this.log.warn({ lines: chunk.corrupt.length, file: this.replay.path }, `unreadable lines in a ${this.kind.noun} spill file moved to the dead-letter file`)
      } catch (err) {
        this.noteFailure(err)
        settled = false
      }
    }
    if (!settled || (!(await this.write(chunk.rows, true)) && !(!this.lastFailureTransient && (await this.isolate(chunk.rows, true))))) {
      // Keep the file; it is read again from the start later (stored entries are skipped).
      this.replay.abandon()
      this.replay = undefined
      this.replayWanted = true
      return false
    }
    if (chunk.done) {
      this.replay.finish()
      this.replay = undefined
      this.replayWanted = this.spill.hasPending()
      if (!this.replayWanted) this.spillingSince = undefined
    }
    return true
  }

  private async write(rows: readonly Row[], replayed = false): Promise<boolean> {
    if (rows.length === 0) return true
    try {
      const stored = await this.store.writeBatch(rows)
      this.counters.written += stored
      this.counters.duplicates += rows.length - stored
      if (replayed) this.counters.replayed += stored
      this.consecutiveFailures = 0
      this.retryAt = 0
      return true
    } catch (err) {
      this.counters.batch_failures++
      this.noteFailure(err)
      this.log.error({ err, entries: rows.length, failures: this.consecutiveFailures, transient: this.lastFailureTransient }, `${this.kind.noun}: batch write failed; retrying`)
      return false
    }
  }

  /** Counts a failure and sets the next attempt's time (exponential backoff). */
  private noteFailure(err: unknown): void {
    this.consecutiveFailures++
    this.lastFailureTransient = isTransientWriteError(err)
    this.lastError = err instanceof Error ? err.message : String(err)
    this.retryAt = Date.now() + Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (this.consecutiveFailures - 1))
  }

  /**
   * Writes entries one by one to find poison entries. True when the batch is settled (each entry stored or
   * dead-lettered); false when nothing could be written or an error was transient (retry the batch later; what
   * was stored meanwhile is skipped then).
   */
  private async isolate(rows: readonly Row[], replayed = false): Promise<boolean> {
    const poison: Row[] = []
    let stored = 0
    for (const row of rows) {
      try {
        const n = await this.store.writeBatch([row])
        this.counters.written += n
        if (replayed) this.counters.replayed += n
        stored++
      } catch (err) {
        if (isTransientWriteError(err)) {
          this.noteFailure(err)
          return false
        }
        poison.push(row)
      }
    }
    if (stored === 0 && poison.length > 0) return false
    if (poison.length > 0) {
      try {
        this.spill.deadLetter(poison.map((row) => JSON.stringify(row)))
      } catch (err) {
        this.noteFailure(err)
        return false
      }
      this.counters.failed += poison.length
      this.log.error({ entries: poison.length, ids: poison.map((row) => this.kind.id(row)).slice(0, 10) }, `${this.kind.noun} could not be stored; moved to the dead-letter file`)
    }
    this.consecutiveFailures = 0
    this.retryAt = 0
    return true
  }

  /**
   * The first `n` queued rows, encoding the items among them in place (so a batch retried later is not encoded
   * again); an item that cannot be encoded leaves the queue. At most {@link ENCODE_SLICE} items are encoded per turn
   * of the event loop: a whole batch at once (about 5 µs an audit entry, a 200 ms flush of a busy replica holding
   * hundreds) held the request that arrived meanwhile for milliseconds, the p99 of MCP tools/call (issue 30).
   * Only appends happen to the queue between two slices (the loop is the only other writer, and this is the loop).
   */
  private async encodeHeadInSlices(n: number): Promise<Row[]> {
    const rows: Row[] = []
    let i = 0
    let encoded = 0
    while (i < this.queue.length && rows.length < n) {
      const value = this.queue[i]!
      if (!this.isItem(value)) {
        rows.push(value as Row)
        i++
        continue
      }
      if (encoded === ENCODE_SLICE) {
        encoded = 0
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      encoded++
      const row = this.encodeItem(value)
      if (row === undefined) {
        this.queue.splice(i, 1)
        this.enqueuedAt.splice(i, 1)
        this.queueBytes -= this.weights.splice(i, 1)[0]!
        continue
      }
      const weight = this.kind.bytes(row)
      this.queueBytes += weight - this.weights[i]!
      this.queue[i] = row
      this.weights[i] = weight
      rows.push(row)
      i++
    }
    return rows
  }

  /** Rows of queued values, items encoded (those that cannot be are left out). */
  private rowsOf(values: readonly (Row | Item)[]): Row[] {
    const rows: Row[] = []
    for (const value of values) {
      const row = this.isItem(value) ? this.encodeItem(value) : (value as Row)
      if (row !== undefined) rows.push(row)
    }
    return rows
  }

  private take(n: number): (Row | Item)[] {
    const taken = this.queue.splice(0, n)
    for (const w of this.weights.splice(0, n)) this.queueBytes -= w
    this.enqueuedAt.splice(0, n)
    return taken
  }

  private spillRows(rows: Row[]): void {
    if (rows.length === 0) return
    // While memory holds entries the spill folder refused, new overflow joins them (order kept; one retry per pass).
    if (this.held.length === 0) {
      try {
        this.spill.append(rows)
        this.counters.spilled += rows.length
        this.spillingSince ??= Date.now()
        return
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err)
        this.log.error({ err, entries: rows.length }, `${this.kind.noun}: spill failed; holding them in memory until the database or the spill folder takes writes`)
      }
    }
    this.hold(rows)
  }

  /** Keeps rows in memory up to the bound; past it they are lost, counted and logged by id at once. */
  private hold(rows: readonly Row[]): void {
    const lost: Row[] = []
    for (const row of rows) {
      const weight = this.kind.bytes(row)
      if (this.heldBytes + weight > this.memoryMaxBytes) {
        lost.push(row)
        continue
      }
      this.heldSince ??= Date.now()
      this.held.push(row)
      this.heldWeights.push(weight)
      this.heldBytes += weight
    }
    if (lost.length > 0) this.lose(lost, `${this.kind.noun} lost: the database and the spill folder refuse writes and the memory bound is reached`)
    this.schedule(this.options.flushIntervalMs)
  }

  private lose(rows: readonly Row[], message: string): void {
    this.counters.lost += rows.length
    this.lastLoss = Date.now()
    this.log.error({ entries: rows.length, lost_total: this.counters.lost, held_max_bytes: this.memoryMaxBytes, ids: rows.map((row) => this.kind.id(row)) }, message)
  }

  /** Moves held entries into the queue as far as it has room. */
  private refillFromHeld(): void {
    let n = 0
    while (
      n < this.held.length &&
      this.queue.length + n < this.options.capacity &&
      (this.queue.length + n === 0 || this.queueBytes + (this.heldWeights[n] ?? 0) <= this.options.maxBytes)
    ) {
      this.queueBytes += this.heldWeights[n] ?? 0
      n++
    }
    if (n === 0) return
    this.queue.push(...this.held.splice(0, n))
    const weights = this.heldWeights.splice(0, n)
    this.weights.push(...weights)
    for (const w of weights) this.heldBytes -= w
    const since = this.heldSince ?? Date.now()
    for (let i = 0; i < n; i++) this.enqueuedAt.push(since)
    if (this.held.length === 0) this.heldSince = undefined
  }

  /** Tries to move every held entry to the spill folder; true when memory holds nothing any more. */
  private spillHeld(): boolean {
    if (this.held.length === 0) return true
    try {
      this.spill.append(this.held)
    } catch (err) {
      this.lastError = err instanceof Error ? err.message : String(err)
      return false
    }
    this.counters.spilled += this.held.length
    this.spillingSince = Math.min(this.spillingSince ?? Date.now(), this.heldSince ?? Date.now())
    this.held = []
    this.heldWeights = []
    this.heldBytes = 0
    this.heldSince = undefined
    this.replayWanted = true
    return true
  }

  /** More of what makes a report worth logging again (the audit writer's suppressed count). */
  protected reportKey(): string {
    return ''
  }

  /** The counters as the periodic report logs them. */
  protected reportStats(): object {
    return this.writerStats()
  }

  /** One pass now: writes what is queued (then pending replays) unless a failed batch's backoff runs; never waits it out. */
  async writeNow(): Promise<void> {
    await this.running
    await this.run()
  }

  protected report(final = false): void {
    const stats = this.writerStats()
    const key = `${stats.spilled}|${stats.failed}|${stats.batch_failures}|${this.reportKey()}|${stats.lost}|${stats.held}`
    if (!final && key === this.reported) return
    this.reported = key
    const noteworthy = stats.spilled > 0 || stats.failed > 0 || stats.batch_failures > 0 || stats.spill_files > 0 || stats.held > 0 || stats.lost > 0
    this.log[noteworthy ? 'warn' : 'info']({ [`${this.kind.name}_writer`]: this.reportStats() }, final ? `${this.kind.name} writer drained` : `${this.kind.name} writer counters`)
  }
}
