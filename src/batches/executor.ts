/**
 * @module Runs the batches the gateway executes itself. Every replica looks for unfinished batches now and then;
 * one holds a batch at a time (the lease `batch:<id>`: a PostgreSQL advisory lock that a dead replica's connection
 * releases), so another replica takes a batch over when its holder dies. The holder runs the pending lines, a
 * bounded number at a time, each through the pipeline as a live request (line-runner.ts). A line is claimed in the
 * store before it runs and finished there after; a line found claimed when a replica takes a batch over was
 * claimed by a replica that died with it in flight, and is reported failed (`batch_line_interrupted`) rather than
 * sent twice. Then the batch ends: its result files are written and its status becomes final.
 */
import type { FileAccess } from '../files/file-access.ts'
import type { Logger } from '../log/logger.ts'
import type { BatchStore, FinishedBatchLine, Lease } from '../stores/types.ts'
import { LINE_FAILURES } from './batch-errors.ts'
import type { BatchLine, BatchRecord, BatchStatus } from './batch-record.ts'
import { writeResultFiles } from './result-files.ts'

/** Runs one line as a live request of the batch's owner; every outcome (a refusal too) is a finished line. */
export type LineRunner = (batch: BatchRecord, line: BatchLine) => Promise<FinishedBatchLine>

export interface BatchExecutorDeps {
  store: BatchStore
  lease: Lease
  files: () => FileAccess | undefined
  runLine: LineRunner
  /** Lines of one batch running at the same time. */
  concurrency: number
  pollMs: number
  /** This replica's id, recorded on the lines it claims. */
  replicaId: string
  log: Logger
  now?: () => number
}

/** Statuses the executor still has work in. */
const UNFINISHED: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling']
/** Batches one replica works on at the same time (each holds a database connection for its lease). */
const BATCHES_AT_ONCE = 2
const PAGE = 100
/** How often a running batch re-reads its status (a cancel made on another replica). */
const STATUS_CHECK_MS = 250

export class BatchExecutor {
  private readonly now: () => number
  private readonly working = new Map<string, Promise<unknown>>()
  private timer?: ReturnType<typeof setInterval>
  private ticking = false
  private tickAgain = false
  private stopping = false

  constructor(private readonly deps: BatchExecutorDeps) {
    this.now = deps.now ?? Date.now
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.deps.pollMs)
    this.timer.unref?.()
    this.kick()
  }

  /** Looks for work now (a batch was created or cancelled here). */
  kick(): void {
    if (this.stopping) return
    if (this.ticking) {
      this.tickAgain = true
      return
    }
    this.ticking = true
    this.tick()
      .catch((err) => this.deps.log.warn({ err: (err as Error).message }, 'could not look for batches to run'))
      .finally(() => {
        this.ticking = false
        if (this.tickAgain && !this.stopping) {
          this.tickAgain = false
          this.kick()
        }
      })
  }

  /** Takes no new line; resolves when the lines running now have finished. */
  async stop(): Promise<void> {
    this.stopping = true
    clearInterval(this.timer)
    await Promise.allSettled([...this.working.values()])
  }

  /** Resolves when no batch is being worked on here (tests). */
  async idle(): Promise<void> {
    while (this.working.size > 0 || this.ticking) await Promise.allSettled([...this.working.values(), Bun.sleep(5)])
  }

  private async tick(): Promise<void> {
    const batches = await this.deps.store.withStatus(UNFINISHED, 50)
    for (const batch of batches) {
      if (this.working.size >= BATCHES_AT_ONCE) return
      if (this.working.has(batch.id)) continue
      const work = this.deps.lease
        .runExclusive(`batch:${batch.id}`, () => this.work(batch.id))
        .catch((err) => this.deps.log.error({ err, batch_id: batch.id }, 'batch work failed'))
        .finally(() => {
          this.working.delete(batch.id)
          if (!this.stopping) this.kick()
        })
      this.working.set(batch.id, work)
    }
  }

  /** Runs under the batch's lease: nobody else works on it meanwhile. */
  private async work(id: string): Promise<void> {
    const store = this.deps.store
    const batch = await store.get(id)
    if (!batch || !UNFINISHED.includes(batch.status)) return
    // Claimed by a replica that no longer holds the lease: it died (or lost its database connection) mid-line.
    const interrupted = await store.failLines(id, ['claimed'], { kind: 'error', ...LINE_FAILURES.interrupted })
    if (interrupted > 0) this.deps.log.warn({ batch_id: id, lines: interrupted }, 'batch lines interrupted by a replica that stopped; reported failed, not run again')
    if (batch.status === 'in_progress' && !this.expired(batch)) {
      const finishedAll = await this.runLines(batch)
      if (!finishedAll) return
    }
    await this.end(id)
  }

  private expired(batch: BatchRecord): boolean {
    return this.now() / 1000 >= batch.expiresAt
  }

  /** Runs pending lines until none is left (true), or the batch stops being in progress or this replica stops (false). */
  private async runLines(batch: BatchRecord): Promise<boolean> {
    const store = this.deps.store
    let queue: BatchLine[] = []
    let from = 0
    let exhausted = false
    let halted = false
    let checkedAt = this.now()
    const take = async (): Promise<BatchLine | undefined> => {
      if (halted || this.stopping) return undefined
      if (this.now() - checkedAt >= STATUS_CHECK_MS) {
        checkedAt = this.now()
        const current = await store.get(batch.id)
        if (current?.status !== 'in_progress' || this.expired(current)) halted = true
      }
      if (this.expired(batch)) halted = true
      if (halted) return undefined
      if (queue.length === 0 && !exhausted) {
        queue = await store.lines(batch.id, { states: ['pending'], fromIndex: from, limit: PAGE })
        if (queue.length < PAGE) exhausted = true
        if (queue.length > 0) from = queue.at(-1)!.index + 1
      }
      return queue.shift()
    }
    // One taker at a time: the page read and the status check are shared by the workers.
    let turn: Promise<unknown> = Promise.resolve()
    const next = () => {
      const taken = turn.then(take)
      turn = taken.catch(() => {})
      return taken
    }
    const worker = async () => {
      for (let line = await next(); line; line = await next()) {
        if (!(await store.claimLine(batch.id, line.index, this.deps.replicaId, this.now()))) continue
        const finished = await this.deps.runLine(batch, line)
        await store.finishLine(batch.id, line.index, this.deps.replicaId, finished)
      }
    }
    await Promise.all(Array.from({ length: this.deps.concurrency }, worker))
    if (halted || this.stopping) return false
    return (await store.lines(batch.id, { states: ['pending', 'claimed'], limit: 1 })).length === 0
  }

  /** Gives the batch its final status: the lines left fail with the reason, the result files are written. */
  private async end(id: string): Promise<void> {
    const store = this.deps.store
    const batch = await store.get(id)
    if (!batch || !UNFINISHED.includes(batch.status)) return
    const now = () => Math.floor(this.now() / 1000)
    let final: BatchStatus
    let from: BatchStatus[]
    if (batch.status === 'cancelling') {
      await store.failLines(id, ['pending'], { kind: 'error', ...LINE_FAILURES.cancelled })
      final = 'cancelled'
      from = ['cancelling']
    } else if (this.expired(batch)) {
      await store.failLines(id, ['pending'], { kind: 'error', ...LINE_FAILURES.expired })
      final = 'expired'
      from = ['in_progress', 'finalizing']
    } else {
      final = 'completed'
      from = ['finalizing']
      if (batch.status !== 'finalizing' && !(await store.transition(id, ['in_progress'], { status: 'finalizing', finalizingAt: now() }))) return
    }
    const files = this.deps.files()
    if (!files) {
      this.deps.log.error({ batch_id: id }, 'batch finished but the Files API is not available to write its results')
      return
    }
    const written = await writeResultFiles(store, files, batch)
    const at = now()
    const stamp = final === 'cancelled' ? { cancelledAt: at } : final === 'expired' ? { expiredAt: at } : { completedAt: at }
    await store.transition(id, from, { status: final, ...stamp, ...written })
  }
}
