/**
 * @module The seam between the batch service (src/batches) and a provider's own batch API
 * (src/batches/providers/<provider>/). The service resolves, checks and rewrites every line first; an adapter only
 * submits lines already in their final form to its provider, follows the job, and reads the results back in
 * OpenAI's batch output format with the caller's `custom_id`s.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import type { ProviderInstance } from '../providers/types.ts'

/** One line ready for the provider: its endpoint row, and the OpenAI-shaped body with `model` the upstream model id. */
export interface PreparedBatchLine {
  customId: string
  /** The endpoint row id the line's `url` named (the rows of /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/completions). */
  endpointId: string
  body: Record<string, unknown>
}

/** A submitted job, as the adapter needs it to follow it; persisted by the service (JSON), so plain data only. */
export interface ProviderBatchJob {
  /** The provider's id of the job. */
  id: string
  /** Whatever else the adapter needs later (its input file id, the model of a Gemini batch, …). */
  detail: Record<string, string>
}

export type ProviderBatchState = 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'expired'

export interface ProviderBatchStatus {
  state: ProviderBatchState
  counts: { total: number; completed: number; failed: number }
  /** Why the whole job failed, when it did. */
  error?: string
}

/** One line's outcome in OpenAI's batch output format: exactly one of `response` and `error` is set. */
export interface BatchResultLine {
  customId: string
  /** `body` is the OpenAI-shaped answer (an Anthropic message translated to a chat completion, …). */
  response: { statusCode: number; body: unknown } | null
  error: { code: string; message: string } | null
}

export interface ProviderBatchApi {
  /** Whether the provider's batch API takes lines of this endpoint row. */
  supports(endpointId: string): boolean
  submit(provider: ProviderInstance, lines: readonly PreparedBatchLine[], signal: AbortSignal): Promise<ProviderBatchJob | GatewayError>
  status(provider: ProviderInstance, job: ProviderBatchJob, signal: AbortSignal): Promise<ProviderBatchStatus | GatewayError>
  /** The outcome of every line; called once the status is final. */
  results(provider: ProviderInstance, job: ProviderBatchJob, signal: AbortSignal): AsyncIterable<BatchResultLine | GatewayError>
  cancel(provider: ProviderInstance, job: ProviderBatchJob, signal: AbortSignal): Promise<undefined | GatewayError>
  /**
   * Deletes what the gateway left at the provider for the job (its input, output and error files); called once,
   * after every line's result is stored. A failure is only logged: the results are already the gateway's.
   */
  cleanup?(provider: ProviderInstance, job: ProviderBatchJob, signal: AbortSignal): Promise<undefined | GatewayError>
}
