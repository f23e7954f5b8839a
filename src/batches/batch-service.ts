/**
 * @module The Batches API for one caller: create a batch from an input file it owns, read it, list its batches,
 * cancel one. Every batch belongs to the principal that made it; another principal is told it does not exist.
 * Running the lines is the executor's job (executor.ts); this only records the batch and hands it over.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { FileAccess } from '../files/file-access.ts'
import type { Principal } from '../pipeline/context.ts'
import type { BatchStore } from '../stores/types.ts'
import { batchErrors } from './batch-errors.ts'
import type { BatchLine, BatchRecord } from './batch-record.ts'
import { readBatchInput } from './input-file.ts'
import type { BatchBudget, BudgetHold } from './batch-budget.ts'
import type { BatchCreateRequest } from './schemas.ts'

const COMPLETION_WINDOW_SECONDS = 24 * 3600

/** Who asks: the request's principal, user path and labels. */
export interface BatchCaller {
  principal: Principal
  userPath: string
  labels: readonly string[]
  /** The budget feature is on for the caller's workflow: the batch's estimated cost is held in its budgets. */
  budgeted: boolean
}

export interface BatchServiceDeps {
  store: BatchStore
  /** The Files API, once it is served (undefined: batches cannot read input files). */
  files: () => FileAccess | undefined
  maxLines: number
  /** The endpoint row id of a batchable url (`/v1/chat/completions`, …). */
  endpointIdOf: (url: string) => string
  budget: BatchBudget
  /** Told when a batch is ready to run, so the executor can start without waiting for its next look. */
  ready: (batchId: string) => void
  now?: () => number
}

export class BatchService {
  private readonly now: () => number

  constructor(private readonly deps: BatchServiceDeps) {
    this.now = deps.now ?? Date.now
  }

  async create(caller: BatchCaller, request: BatchCreateRequest): Promise<BatchRecord | GatewayError> {
    const files = this.deps.files()
    if (!files) return batchErrors.filesUnavailable()
    const input = await files.open(request.input_file_id, caller.principal.id)
    if (!input) return batchErrors.inputFileNotFound(request.input_file_id)
    if (input.info.purpose !== 'batch') {
      await input.body.cancel().catch(() => {})
      return batchErrors.inputFilePurpose(input.info.purpose)
    }
    const createdAt = Math.floor(this.now() / 1000)
    const batch: BatchRecord = {
      id: `batch_${Bun.randomUUIDv7().replaceAll('-', '')}`,
      owner: {
        principalId: caller.principal.id,
        method: caller.principal.method,
        keyId: caller.principal.keyId ?? null,
        keyHash: caller.principal.keyHash ?? null,
        userPath: caller.userPath,
      },
      labels: [...caller.labels],
      endpoint: request.endpoint,
      inputFileId: request.input_file_id,
      completionWindow: request.completion_window,
      status: 'in_progress',
      outputFileId: null,
      errorFileId: null,
      createdAt,
      inProgressAt: createdAt,
      expiresAt: createdAt + COMPLETION_WINDOW_SECONDS,
      finalizingAt: null,
      completedAt: null,
      failedAt: null,
      expiredAt: null,
      cancellingAt: null,
      cancelledAt: null,
      requestCounts: { total: 0, completed: 0, failed: 0 },
      metadata: request.metadata ?? null,
      outputExpiresAfter: request.output_expires_after?.seconds ?? null,
      errors: null,
      costUsd: 0,
      budgetKeys: null,
    }
    const read = await readBatchInput(input.body, request.endpoint, this.deps.maxLines)
    if (!read.ok) {
      // As OpenAI does: the batch exists, failed at validation, its problems in `errors`.
      const failed: BatchRecord = { ...batch, status: 'failed', inProgressAt: null, failedAt: createdAt, errors: read.errors }
      await this.deps.store.insert(failed, [])
      return failed
    }
    const endpointId = this.deps.endpointIdOf(request.endpoint)
    const lines: BatchLine[] = read.lines.map((line, index) => ({
      batchId: batch.id,
      index,
      customId: line.customId,
      endpointId,
      body: line.body,
      state: 'pending',
      target: null,
      providerJob: null,
      claimedBy: null,
      claimedAt: null,
      auditId: null,
      result: null,
      costUsd: 0,
      estimateMicro: 0,
    }))
    const keyId = caller.principal.keyId
    const userPath = caller.userPath || undefined
    let budgetKeys: BudgetHold | null = null
    if (caller.budgeted && this.deps.budget.applies(keyId, userPath)) {
      for (const line of lines) line.estimateMicro = await this.deps.budget.estimate(endpointId, line.body)
      const hold = await this.deps.budget.reserve(
        keyId,
        userPath,
        lines.reduce((sum, line) => sum + line.estimateMicro, 0),
      )
      if (hold instanceof GatewayError) return hold
      budgetKeys = hold
    }
    const stored: BatchRecord = { ...batch, budgetKeys, requestCounts: { total: lines.length, completed: 0, failed: 0 } }
    try {
      await this.deps.store.insert(stored, lines)
    } catch (err) {
      await this.deps.budget.release(
        budgetKeys,
        lines.reduce((sum, line) => sum + line.estimateMicro, 0),
      )
      throw err
    }
    this.deps.ready(stored.id)
    return stored
  }

  async get(id: string, principalId: string): Promise<BatchRecord | GatewayError> {
    return (await this.deps.store.get(id, principalId)) ?? batchErrors.batchNotFound(id)
  }

  /** Newest first; one more than `limit` is read to know whether more follow. */
  async list(principalId: string, after: string | undefined, limit: number): Promise<{ batches: BatchRecord[]; hasMore: boolean }> {
    const found = await this.deps.store.list({ principalId, after, limit: limit + 1 })
    return { batches: found.slice(0, limit), hasMore: found.length > limit }
  }

  /** An unfinished batch becomes `cancelling`; the executor stops its lines and ends it `cancelled`. */
  async cancel(id: string, principalId: string): Promise<BatchRecord | GatewayError> {
    const batch = await this.deps.store.get(id, principalId)
    if (!batch) return batchErrors.batchNotFound(id)
    if (batch.status === 'cancelling' || batch.status === 'cancelled') return batch
    const cancelling = await this.deps.store.transition(id, ['validating', 'in_progress'], { status: 'cancelling', cancellingAt: Math.floor(this.now() / 1000) })
    if (!cancelling) {
      const now = await this.deps.store.get(id, principalId)
      return now?.status === 'cancelling' ? now : batchErrors.notCancellable(now?.status ?? batch.status)
    }
    this.deps.ready(id)
    return cancelling
  }
}
