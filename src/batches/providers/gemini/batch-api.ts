/**
 * @module Gemini batch mode: the chat lines (and responses lines over chat, line-bodies.ts) of each model (a batch names one) are translated with the live
 * adapter's chat translation and submitted inline to `models/{model}:batchGenerateContent` (`inputConfig.requests`,
 * each request with `metadata.key` the caller's custom_id; inline requests are bounded at 20 MB a batch, so a long
 * list is several batches); the long-running operation `batches/{id}` is polled for its state (`BATCH_STATE_*`, or
 * `JOB_STATE_*` as the guide's examples name them) and `batchStats`; its inlined responses are translated back to
 * chat completions (a blocked prompt is the 400 a live call gets), and a line's error (a `google.rpc.Status`) the
 * error answer of a live call.
 */
import { GatewayError } from '../../../errors/gateway-error.ts'
import type { ChatTranslation, ProviderInstance } from '../../../providers/types.ts'
import { upstreamError, upstreamFailures } from '../../../providers/upstream-errors.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../providers/upstream-url.ts'
import type { BatchResultLine, ProviderBatchApi, ProviderBatchState, ProviderBatchStatus } from '../../provider-batch-api.ts'
import { boundedGroups, type JobPart, jobOfParts, partsOfJob, statusOfParts } from '../job-parts.ts'
import { countingRejected, nothingToSubmit, type RejectedLine, rejectedLines, rejectedResult } from '../line-ids.ts'
import { LineBodies, takesLinesOf } from '../line-bodies.ts'
import { missingLineResult } from '../missing-lines.ts'
import { callJson } from '../provider-http.ts'

type Json = Record<string, unknown>

/** Gemini's bound on a batch's inline requests (its batch guide, 2026-11: 20 MB), with room for the envelope. */
const MAX_INLINE_BYTES = 19 * 1024 * 1024
/** A finished operation carries every answer inline: read whole, bounded. */
const MAX_OPERATION_BYTES = 512 * 1024 * 1024

const STATES: Readonly<Record<string, ProviderBatchState>> = {
  UNSPECIFIED: 'in_progress',
  PENDING: 'in_progress',
  QUEUED: 'in_progress',
  RUNNING: 'in_progress',
  SUCCEEDED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
}

/** HTTP statuses of the `google.rpc.Code`s a request can end with (google/rpc/code.proto). */
const RPC_HTTP_STATUS: Readonly<Record<number, [number, string]>> = {
  1: [499, 'CANCELLED'],
  2: [500, 'UNKNOWN'],
  3: [400, 'INVALID_ARGUMENT'],
  4: [504, 'DEADLINE_EXCEEDED'],
  5: [404, 'NOT_FOUND'],
  7: [403, 'PERMISSION_DENIED'],
  8: [429, 'RESOURCE_EXHAUSTED'],
  9: [400, 'FAILED_PRECONDITION'],
  13: [500, 'INTERNAL'],
  14: [503, 'UNAVAILABLE'],
  16: [401, 'UNAUTHENTICATED'],
}

export function geminiBatchApi(translation: ChatTranslation): ProviderBatchApi {
  const headers = (provider: ProviderInstance): Record<string, string> => {
    const h: Record<string, string> = { 'content-type': 'application/json' }
    if (provider.apiKey) h['x-goog-api-key'] = provider.apiKey
    return h
  }
  const operation = (provider: ProviderInstance, part: JobPart, signal: AbortSignal) =>
    callJson(provider, { url: batchUrl(provider, part.id, ''), method: 'GET', headers: headers(provider) }, signal, MAX_OPERATION_BYTES)

  function resultOf(provider: ProviderInstance, item: Json, model: string): BatchResultLine | GatewayError {
    const customId = (item.metadata as Json | undefined)?.key
    if (typeof customId !== 'string') return upstreamFailures.unexpectedShape(provider.name, 'an inlined response has no metadata.key')
    if (item.response && typeof item.response === 'object') {
      const completion = translation.answer(item.response as Json, model, provider.name)
      if (completion instanceof GatewayError) return { customId, response: { statusCode: completion.status, body: completion.toJSON() }, error: null }
      return { customId, response: { statusCode: 200, body: completion }, error: null }
    }
    const status = (item.error ?? {}) as Json
    const [httpStatus, name] = RPC_HTTP_STATUS[typeof status.code === 'number' ? status.code : 2] ?? [500, 'UNKNOWN']
    const error = upstreamError({
      provider: provider.name,
      status: httpStatus,
      body: { error: { message: status.message, code: name } },
      text: '',
      headers: new Headers(),
      secrets: provider.apiKey ? [provider.apiKey] : [],
    })
    return { customId, response: { statusCode: error.status, body: error.toJSON() }, error: null }
  }

  return {
    supports: takesLinesOf,

    async submit(provider, lines, signal) {
      const byModel = new Map<string, { request: Json; metadata: { key: string } }[]>()
      const rejected: RejectedLine[] = []
      const bodies = LineBodies.forSubmit()
      for (const line of lines) {
        const body = bodies.chatBody(line)
        const model = String(line.body.model ?? '')
        const request = body instanceof GatewayError ? body : translation.request(body, model)
        if (request instanceof GatewayError) {
          rejected.push({ customId: line.customId, error: request.toJSON().error })
          continue
        }
        const group = byModel.get(model) ?? []
        group.push({ request, metadata: { key: line.customId } })
        byModel.set(model, group)
      }
      const parts: JobPart[] = []
      for (const [model, requests] of byModel) {
        for (const group of boundedGroups(requests, (r) => Buffer.byteLength(JSON.stringify(r)), Number.MAX_SAFE_INTEGER, MAX_INLINE_BYTES)) {
          const body = { batch: { displayName: `gateway batch of ${group.length} ${model} requests`, inputConfig: { requests: { requests: group } } } }
          const created = await callJson(provider, { url: modelUrl(provider, model), method: 'POST', headers: headers(provider), body: JSON.stringify(body) }, signal)
          const name = created instanceof GatewayError ? undefined : created.name
          if (created instanceof GatewayError || typeof name !== 'string' || !name.startsWith('batches/')) {
            await cancelParts(provider, parts, signal)
            return created instanceof GatewayError ? created : upstreamFailures.unexpectedShape(provider.name, 'its batch operation has no batches/ name')
          }
          // The keys, for the lines a batch that ends early returns no answer for.
          parts.push({ id: name, model, keys: JSON.stringify(group.map((r) => r.metadata.key)) })
        }
      }
      if (parts.length === 0) {
        return nothingToSubmit(provider, 'Gemini', rejected)
      }
      return jobOfParts(parts, { ...rejectedLines.detail(rejected), ...bodies.detail() })
    },

    async status(provider, job, signal) {
      const unknownState = (part: JobPart) => upstreamFailures.unexpectedShape(provider.name, `batch ${part.id} has no known state`)
      const status = await statusOfParts(job, (part) => operation(provider, part, signal), statusOf, unknownState)
      return status instanceof GatewayError ? status : countingRejected(status, job)
    },

    async *results(provider, job, signal) {
      for (const line of rejectedLines.of(job)) yield rejectedResult(line)
      const bodies = LineBodies.ofJob(job)
      for (const part of partsOfJob(job)) {
        const op = await operation(provider, part, signal)
        if (op instanceof GatewayError) {
          yield op
          return
        }
        const seen = new Set<string>()
        for (const item of inlinedResponses(op)) {
          const result = resultOf(provider, item, part.model ?? '')
          if (result instanceof GatewayError) {
            yield result
            return
          }
          yield bodies.answer(result, part.model ?? '')
          seen.add(result.customId)
        }
        const status = statusOf(op)
        for (const key of part.keys ? (JSON.parse(part.keys) as string[]) : []) if (!seen.has(key)) yield missingLineResult(key, status?.state, status?.error)
      }
    },

    cancel: (provider, job, signal) => cancelParts(provider, partsOfJob(job), signal),
  }

  async function cancelParts(provider: ProviderInstance, parts: readonly JobPart[], signal: AbortSignal): Promise<undefined | GatewayError> {
    let failure: GatewayError | undefined
    for (const part of parts) {
      const op = await operation(provider, part, signal)
      if (op instanceof GatewayError) {
        failure ??= op
        continue
      }
      if (statusOf(op)?.state !== 'in_progress') continue
      const cancelled = await callJson(provider, { url: batchUrl(provider, part.id, ':cancel'), method: 'POST', headers: headers(provider), body: '{}' }, signal)
      if (cancelled instanceof GatewayError) failure ??= cancelled
    }
    return failure
  }
}

/** `models/{id}:batchGenerateContent`, or the model's own collection when its id names one (`tunedModels/…`). */
function modelUrl(provider: ProviderInstance, model: string): UpstreamUrl {
  const slash = model.indexOf('/')
  const collection = slash === -1 ? 'models' : model.slice(0, slash)
  return upstreamUrl(provider.baseUrl)`/${collection}/${model.slice(slash + 1)}:batchGenerateContent`
}

/** `batches/{id}` (and its `:cancel`); `name` is the operation's name as Gemini gave it. */
function batchUrl(provider: ProviderInstance, name: string, method: '' | ':cancel'): UpstreamUrl {
  const id = name.slice('batches/'.length)
  return method ? upstreamUrl(provider.baseUrl)`/batches/${id}:cancel` : upstreamUrl(provider.baseUrl)`/batches/${id}`
}

/** The batch in an operation: its `metadata` (a GenerateContentBatch); a bare batch is read as it is. */
function batchOf(op: Json): Json {
  const metadata = op.metadata as Json | undefined
  return metadata && typeof metadata.state === 'string' ? metadata : op
}

function statusOf(op: Json): ProviderBatchStatus | undefined {
  const batch = batchOf(op)
  const stateName = typeof batch.state === 'string' ? batch.state.replace(/^(BATCH|JOB)_STATE_/, '') : undefined
  const state = stateName ? STATES[stateName] : undefined
  if (!state) return undefined
  const stats = (batch.batchStats ?? {}) as Json
  // int64 fields arrive as strings in proto JSON.
  const n = (v: unknown) => {
    const value = typeof v === 'string' ? Number(v) : v
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }
  const status: ProviderBatchStatus = { state, counts: { total: n(stats.requestCount), completed: n(stats.successfulRequestCount), failed: n(stats.failedRequestCount) } }
  const error = (op.error as Json | undefined)?.message
  if (state === 'failed') status.error = typeof error === 'string' ? error : 'The provider failed the batch.'
  return status
}

/** The answers of a finished batch: `response.inlinedResponses.inlinedResponses` (or the batch's `output`). */
function inlinedResponses(op: Json): Json[] {
  const containers = [(op.response as Json | undefined)?.inlinedResponses, (batchOf(op).output as Json | undefined)?.inlinedResponses]
  for (const container of containers) {
    if (Array.isArray(container)) return container as Json[]
    const inner = (container as Json | undefined)?.inlinedResponses
    if (Array.isArray(inner)) return inner as Json[]
  }
  return []
}
