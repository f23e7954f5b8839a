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
import type { BatchBudget } from './batch-budget.ts'
import type { ProviderInstance } from '../providers/types.ts'
import { GatewayError } from '../errors/gateway-error.ts'
import type { ProviderBatchApi, ProviderBatchJob } from './provider-batch-api.ts'

/**
 * How a line runs: as a live request, handed to a provider batch API instead when `handOver` says its target's
 * provider takes it; or with a provider batch API's answer replayed in the route stage's place.
 */
export type LineMode = { kind: 'run'; handOver?: (providerName: string, endpointId: string) => boolean } | { kind: 'replay'; answer: { statusCode: number; body: unknown } }

/** A line's run: finished (every outcome, a refusal too), or resolved and rewritten for a provider batch API to run. */
export type LineRun = { kind: 'finished'; finished: FinishedBatchLine } | { kind: 'handedOver'; providerName: string; body: Record<string, unknown> }

/** Runs one line as a live request of the batch's owner (line-runner.ts). */
export type LineRunner = (batch: BatchRecord, line: BatchLine, mode: LineMode) => Promise<LineRun>

/** A provider instance and its batch API, for lines whose target it is. */
export interface ProviderBatchTarget {
  provider: ProviderInstance
  api: ProviderBatchApi
}

export interface BatchExecutorDeps {
  store: BatchStore
  lease: Lease
  files: () => FileAccess | undefined
  runLine: LineRunner
  /** The batch API that takes lines of `endpointId` for this provider instance; undefined: the gateway runs them. */
  providerBatches: (providerName: string, endpointId: string) => ProviderBatchTarget | undefined
  /** Lines of one batch running at the same time. */
  concurrency: number
  pollMs: number
  /** Gives back ended lines' estimates held in the batch's budgets. */
  budget: Pick<BatchBudget, 'release'>
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
/** A provider batch API's answer to one call (status, submit, cancel), and to its results read whole. */
const PROVIDER_CALL_MS = 60_000
const PROVIDER_RESULTS_MS = 15 * 60_000
/** Lines handed to one provider job at most; more make several jobs. */
const LINES_PER_JOB = 10_000

export class BatchExecutor {
  private readonly now: () => number
  private readonly working = new Map<string, Promise<unknown>>()
  private timer?: ReturnType<typeof setInterval>
  private ticking = false
  private tickAgain = false
  private stopping = false
  private readonly cancelledJobs = new Set<string>()
  /** Batches to work on at the next look, whenever they were last worked on. */
  private readonly due = new Set<string>()
  /** When each batch was last taken up here (epoch ms). */
  private readonly lastWorked = new Map<string, number>()

  constructor(private readonly deps: BatchExecutorDeps) {
    this.now = deps.now ?? Date.now
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.deps.pollMs)
    this.timer.unref?.()
    this.kick()
  }

  /** Looks for work now; `batchId`: that batch is due at once (it was created or cancelled here). */
  kick(batchId?: string): void {
    if (this.stopping) return
    if (batchId) this.due.add(batchId)
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
    const batches = await this.deps.store.withStatus(UNFINISHED, 500)
    const now = this.now()
    const listed = new Set(batches.map((b) => b.id))
    for (const id of this.lastWorked.keys()) if (!listed.has(id)) this.lastWorked.delete(id)
    for (const batch of batches) {
      if (this.working.size >= BATCHES_AT_ONCE) return
      if (this.working.has(batch.id)) continue
      // A batch worked on a moment ago (waiting for its provider jobs) waits for the next round: no busy loop.
      if (!this.due.has(batch.id) && now - (this.lastWorked.get(batch.id) ?? 0) < this.deps.pollMs) continue
      this.due.delete(batch.id)
      this.lastWorked.set(batch.id, now)
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
    const interrupted = await store.recoverClaimed(id, { kind: 'error', ...LINE_FAILURES.interrupted })
    await this.deps.budget.release(batch.budgetKeys, interrupted.estimateMicro)
    if (interrupted.lines > 0) this.deps.log.warn({ batch_id: id, lines: interrupted.lines }, 'batch lines interrupted by a replica that stopped; reported failed, not run again')
    if (batch.status === 'cancelling') await this.cancelJobs(batch)
    await this.collect(batch)
    if (batch.status === 'in_progress' && !this.expired(batch)) {
      const finishedAll = await this.runLines(batch)
      if (!finishedAll) return
    }
    await this.end(id)
  }

  /** The provider jobs of the batch's submitted lines, by job. */
  private async submittedJobs(batchId: string): Promise<Map<string, BatchLine[]>> {
    const jobs = new Map<string, BatchLine[]>()
    for (let from = 0; ; ) {
      const page = await this.deps.store.lines(batchId, { states: ['submitted'], fromIndex: from, limit: 1000 })
      for (const line of page) {
        const key = `${line.target}\n${line.providerJob}`
        jobs.set(key, [...(jobs.get(key) ?? []), line])
      }
      if (page.length < 1000) return jobs
      from = page.at(-1)!.index + 1
    }
  }

  /** Reads the answers of provider jobs that ended: each line's answer goes through the pipeline as a live one's would. */
  private async collect(batch: BatchRecord): Promise<void> {
    for (const lines of (await this.submittedJobs(batch.id)).values()) {
      const first = lines[0]!
      const target = this.deps.providerBatches(first.target!, first.endpointId)
      if (!target) continue
      const job = JSON.parse(first.providerJob!) as ProviderBatchJob
      const status = await target.api.status(target.provider, job, AbortSignal.timeout(PROVIDER_CALL_MS))
      if (status instanceof GatewayError) {
        this.deps.log.warn({ batch_id: batch.id, provider: first.target, job: job.id, err: status.message }, 'could not read a provider batch job; trying again later')
        continue
      }
      if (status.state === 'in_progress') continue
      const byCustomId = new Map(lines.map((line) => [line.customId, line]))
      const stored = new Set<string>()
      let readAll = true
      for await (const result of target.api.results(target.provider, job, AbortSignal.timeout(PROVIDER_RESULTS_MS))) {
        if (result instanceof GatewayError) {
          this.deps.log.warn({ batch_id: batch.id, provider: first.target, job: job.id, err: result.message }, "could not read a provider batch job's results; trying again later")
          readAll = false
          break
        }
        const line = byCustomId.get(result.customId)
        if (!line || !(await this.deps.store.claimLine(batch.id, line.index, this.deps.replicaId, this.now(), 'submitted'))) continue
        const finished: FinishedBatchLine = result.response
          ? await this.finishedRun(batch, line, { kind: 'replay', answer: result.response })
          : { state: 'failed', result: { kind: 'error', ...result.error! }, auditId: null, costUsd: 0 }
        if (await this.finish(batch, line, finished)) stored.add(line.customId)
      }
      // Only once every line's result is the gateway's: a job still waited for keeps its files to be read again.
      if (readAll && lines.every((line) => stored.has(line.customId))) await this.cleanup(batch, target, first.target!, job)
    }
  }

  /** Deletes the job's files at the provider; the batch does not depend on it, so a failure is only logged. */
  private async cleanup(batch: BatchRecord, target: ProviderBatchTarget, providerName: string, job: ProviderBatchJob): Promise<void> {
    if (!target.api.cleanup) return
    const failed = await target.api
      .cleanup(target.provider, job, AbortSignal.timeout(PROVIDER_CALL_MS))
      .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))
    if (failed)
      this.deps.log.warn({ batch_id: batch.id, provider: providerName, job: job.id, err: failed.message }, "could not delete a provider batch job's files at the provider")
  }

  private async finishedRun(batch: BatchRecord, line: BatchLine, mode: LineMode): Promise<FinishedBatchLine> {
    const ran = await this.deps.runLine(batch, line, mode)
    // A replayed answer is never handed over; the guard keeps the types honest.
    return ran.kind === 'finished'
      ? ran.finished
      : { state: 'failed', result: { kind: 'error', code: 'batch_line_unanswered', message: 'The line was not answered.' }, auditId: null, costUsd: 0 }
  }

  /** A cancelled batch's provider jobs are cancelled (once per job here); their answers are still collected. */
  private async cancelJobs(batch: BatchRecord): Promise<void> {
    for (const [key, lines] of await this.submittedJobs(batch.id)) {
      if (this.cancelledJobs.has(key)) continue
      const first = lines[0]!
      const target = this.deps.providerBatches(first.target!, first.endpointId)
      if (!target) continue
      const cancelled = await target.api.cancel(target.provider, JSON.parse(first.providerJob!) as ProviderBatchJob, AbortSignal.timeout(PROVIDER_CALL_MS))
      if (cancelled instanceof GatewayError) this.deps.log.warn({ batch_id: batch.id, provider: first.target, err: cancelled.message }, 'could not cancel a provider batch job')
      else this.cancelledJobs.add(key)
    }
  }

  /** Records a line's end (only while this replica holds its claim) and gives back its estimate from the budgets. */
  private async finish(batch: BatchRecord, line: BatchLine, finished: FinishedBatchLine): Promise<boolean> {
    if (!(await this.deps.store.finishLine(batch.id, line.index, this.deps.replicaId, finished))) return false
    await this.deps.budget.release(batch.budgetKeys, line.estimateMicro)
    return true
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
    // Lines whose target's provider has a batch API, resolved and rewritten by the pipeline, by provider.
    const handedOver = new Map<string, { line: BatchLine; body: Record<string, unknown> }[]>()
    const mode: LineMode = { kind: 'run', handOver: (providerName, endpointId) => this.deps.providerBatches(providerName, endpointId) !== undefined }
    const worker = async () => {
      for (let line = await next(); line; line = await next()) {
        if (!(await store.claimLine(batch.id, line.index, this.deps.replicaId, this.now()))) continue
        const ran = await this.deps.runLine(batch, line, mode)
        if (ran.kind === 'finished') {
          await this.finish(batch, line, ran.finished)
          continue
        }
        const group = handedOver.get(ran.providerName) ?? []
        group.push({ line, body: ran.body })
        handedOver.set(ran.providerName, group)
        if (group.length >= LINES_PER_JOB) {
          handedOver.delete(ran.providerName)
          await this.submit(batch, ran.providerName, group)
        }
      }
    }
    await Promise.all(Array.from({ length: this.deps.concurrency }, worker))
    for (const [providerName, group] of handedOver) await this.submit(batch, providerName, group)
    if (halted || this.stopping) return false
    return (await store.lines(batch.id, { states: ['pending', 'claimed'], limit: 1 })).length === 0
  }

  /** Hands lines (claimed here) to their provider's batch API as one job; a refused job fails its lines with the refusal. */
  private async submit(batch: BatchRecord, providerName: string, group: { line: BatchLine; body: Record<string, unknown> }[]): Promise<void> {
    const target = this.deps.providerBatches(providerName, group[0]!.line.endpointId)!
    const prepared = group.map(({ line, body }) => ({ customId: line.customId, endpointId: line.endpointId, body }))
    const job = await target.api.submit(target.provider, prepared, AbortSignal.timeout(PROVIDER_RESULTS_MS))
    if (job instanceof GatewayError) {
      this.deps.log.warn({ batch_id: batch.id, provider: providerName, err: job.message }, 'a provider refused a batch job; its lines failed')
      for (const { line } of group) {
        const result = { kind: 'response' as const, statusCode: job.status, requestId: '', body: job.toJSON() }
        await this.finish(batch, line, { state: 'failed', result, auditId: null, costUsd: 0 })
      }
      return
    }
    await this.deps.store.submitLines(
      batch.id,
      group.map(({ line }) => line.index),
      this.deps.replicaId,
      providerName,
      JSON.stringify(job),
    )
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
      await this.deps.budget.release(batch.budgetKeys, (await store.failLines(id, ['pending'], { kind: 'error', ...LINE_FAILURES.cancelled })).estimateMicro)
      final = 'cancelled'
      from = ['cancelling']
    } else if (this.expired(batch)) {
      await this.deps.budget.release(batch.budgetKeys, (await store.failLines(id, ['pending'], { kind: 'error', ...LINE_FAILURES.expired })).estimateMicro)
      final = 'expired'
      from = ['in_progress', 'finalizing']
    } else {
      final = 'completed'
      from = ['finalizing']
    }
    // Lines a provider still runs: the batch ends when their answers are in.
    if ((await store.lines(id, { states: ['pending', 'submitted', 'claimed'], limit: 1 })).length > 0) return
    if (final === 'completed' && batch.status !== 'finalizing' && !(await store.transition(id, ['in_progress'], { status: 'finalizing', finalizingAt: now() }))) return
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
