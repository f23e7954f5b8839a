/**
 * @module A batch and its lines as the gateway keeps them (src/stores/<backend>/batches.ts stores them), and the
 * batch as OpenAI's `batch` object tells it. Times are epoch seconds, as OpenAI's fields are.
 */
import type { AuthMethod } from '../pipeline/context.ts'

/** OpenAI's batch statuses; `validating` only while the input file is read at creation. */
export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled'

/** One problem of the input file, in OpenAI's `errors.data[]` shape. */
export interface BatchInputError {
  code: string
  message: string
  param: string | null
  line: number | null
}

/** Who made the batch, as its lines run: the principal again (a managed key is looked up afresh at each line). */
export interface BatchOwner {
  /** `Principal.id`: only this principal sees the batch. */
  principalId: string
  method: AuthMethod
  keyId: string | null
  /** The SHA-256 of a managed key, to find it in the key snapshot when a line runs (a digest, not the secret). */
  keyHash: string | null
  /** The request's user path ('' when none): the lines run under it, the dashboard filters by it. */
  userPath: string
}

export interface BatchRecord {
  /** `batch_` followed by an opaque id. */
  id: string
  owner: BatchOwner
  /** The request's labels; each line carries them and `batch:<id>`. */
  labels: string[]
  endpoint: string
  inputFileId: string
  completionWindow: string
  status: BatchStatus
  outputFileId: string | null
  errorFileId: string | null
  createdAt: number
  inProgressAt: number | null
  expiresAt: number
  finalizingAt: number | null
  completedAt: number | null
  failedAt: number | null
  expiredAt: number | null
  cancellingAt: number | null
  cancelledAt: number | null
  requestCounts: { total: number; completed: number; failed: number }
  metadata: Record<string, string> | null
  /** `output_expires_after.seconds`: the output and error files expire this long after they are made; null: kept until deleted. */
  outputExpiresAfter: number | null
  errors: BatchInputError[] | null
  /** USD charged so far by the lines that ran (the gateway's prices). */
  costUsd: number
  /** The budget counters holding the batch's estimated cost, released line by line; null: no budget applies. */
  budgetKeys: { key: string; ttlMs: number }[] | null
}

/**
 * Where a line is: waiting; claimed by a replica that is running it (or handing it to a provider's batch API, or
 * recording the provider's answer); submitted to a provider's batch API and waiting for its answer; done one way or
 * the other.
 */
export type BatchLineState = 'pending' | 'claimed' | 'submitted' | 'succeeded' | 'failed'

/** One line's outcome, what its output or error file line says. */
export type BatchLineResult = { kind: 'response'; statusCode: number; requestId: string; body: unknown } | { kind: 'error'; code: string; message: string }

export interface BatchLine {
  batchId: string
  /** 0-based position in the input file; the output files keep this order. */
  index: number
  customId: string
  /** The endpoint row id the line's `url` names. */
  endpointId: string
  body: Record<string, unknown>
  state: BatchLineState
  /** The provider instance a provider batch API took it to; null: the gateway runs it. */
  target: string | null
  /** The provider batch API's job that runs it (a `ProviderBatchJob` as JSON); null: the gateway runs it. */
  providerJob: string | null
  /** The replica that claimed it, and when (epoch ms). */
  claimedBy: string | null
  claimedAt: number | null
  /** The audit entry of the line's request (its id), once it ran. */
  auditId: string | null
  result: BatchLineResult | null
  costUsd: number
  /** Its estimated cost, held in the batch's budgets until it ends (micro-dollars). */
  estimateMicro: number
}

/** What a page of `GET /v1/batches` asks for. */
export interface BatchListQuery {
  /** The owner's batches; absent: everyone's (the admin API, with `userPath`). */
  principalId?: string
  /** Batches made under this user path or below it (the admin API's scope). */
  userPath?: string
  /** Newest first, starting after this batch id. */
  after?: string
  limit: number
}

/** OpenAI's `batch` object. */
export function batchView(b: BatchRecord) {
  return {
    id: b.id,
    object: 'batch' as const,
    endpoint: b.endpoint,
    errors: b.errors ? { object: 'list' as const, data: b.errors } : null,
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status: b.status,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    created_at: b.createdAt,
    in_progress_at: b.inProgressAt,
    expires_at: b.expiresAt,
    finalizing_at: b.finalizingAt,
    completed_at: b.completedAt,
    failed_at: b.failedAt,
    expired_at: b.expiredAt,
    cancelling_at: b.cancellingAt,
    cancelled_at: b.cancelledAt,
    request_counts: b.requestCounts,
    metadata: b.metadata,
  }
}
