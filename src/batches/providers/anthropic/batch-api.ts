/**
 * @module Anthropic Message Batches: each chat line (a responses line over chat, line-bodies.ts) is translated to Messages params with the adapter's own chat
 * translation and submitted as `{custom_id, params}` to `POST /messages/batches` (at most 100,000 requests and
 * 256 MB a batch, so a long list is several batches); `GET /messages/batches/{id}` is polled for
 * `processing_status` and `request_counts`; the results JSONL (`…/results`, built from the base URL rather than the
 * answer's `results_url`, so the key only ever goes to the configured host) is read line by line and each
 * `succeeded` message translated back to an OpenAI chat completion under the caller's `custom_id`; `errored` lines
 * become the error answer a live call would have had, `canceled` and `expired` lines `batch_cancelled` and
 * `batch_expired` errors, as OpenAI names them.
 */
import { GatewayError } from '../../../errors/gateway-error.ts'
import type { ChatTranslation, ProviderInstance } from '../../../providers/types.ts'
import { upstreamError, upstreamFailures } from '../../../providers/upstream-errors.ts'
import { upstreamUrl } from '../../../providers/upstream-url.ts'
import type { BatchResultLine, ProviderBatchApi, ProviderBatchStatus } from '../../provider-batch-api.ts'
import { boundedGroups, type JobPart, jobOfParts, partsOfJob, statusOfParts } from '../job-parts.ts'
import { LineBodies, takesLinesOf } from '../line-bodies.ts'
import { callJson, fetchBatchUpstream, jsonLines } from '../provider-http.ts'
import { countingRejected, LineIds, nothingToSubmit, type RejectedLine, rejectedLines, rejectedResult } from '../line-ids.ts'

type Json = Record<string, unknown>

const ANTHROPIC_VERSION = '2023-06-01'
/** Anthropic's limits on one Message Batch (its batch guide, 2026-11); the bytes kept under 256 MB with room for the envelope. */
const MAX_REQUESTS = 100_000
const MAX_BYTES = 250 * 1024 * 1024
/** What a custom_id may be in a Message Batch. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/

export function anthropicBatchApi(translation: ChatTranslation): ProviderBatchApi {
  const headers = (provider: ProviderInstance): Record<string, string> => {
    const h: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION }
    if (provider.apiKey) h['x-api-key'] = provider.apiKey
    return h
  }
  const retrieve = (provider: ProviderInstance, id: string, signal: AbortSignal) =>
    callJson(provider, { url: upstreamUrl(provider.baseUrl)`/messages/batches/${id}`, method: 'GET', headers: headers(provider) }, signal)

  function resultOf(provider: ProviderInstance, line: Json, ids: LineIds): BatchResultLine | GatewayError {
    if (typeof line.custom_id !== 'string') return upstreamFailures.unexpectedShape(provider.name, 'a result line has no custom_id')
    const customId = ids.callerId(line.custom_id)
    const result = (line.result ?? {}) as Json
    if (result.type === 'succeeded') {
      const message = (result.message ?? {}) as Json
      const completion = translation.answer(message, String(message.model ?? ''), provider.name)
      if (completion instanceof GatewayError) return { customId, response: { statusCode: completion.status, body: completion.toJSON() }, error: null }
      return { customId, response: { statusCode: 200, body: completion }, error: null }
    }
    if (result.type === 'errored') {
      const inner = ((result.error as Json | undefined)?.error ?? result.error ?? {}) as Json
      const type = typeof inner.type === 'string' ? inner.type : 'api_error'
      const error = upstreamError({
        provider: provider.name,
        status: ERROR_STATUS[type] ?? 500,
        body: { error: { message: inner.message, code: type } },
        text: '',
        headers: new Headers(),
        secrets: provider.apiKey ? [provider.apiKey] : [],
      })
      return { customId, response: { statusCode: error.status, body: error.toJSON() }, error: null }
    }
    if (result.type === 'canceled') return { customId, response: null, error: { code: 'batch_cancelled', message: 'The batch was cancelled before this line ran.' } }
    if (result.type === 'expired') return { customId, response: null, error: { code: 'batch_expired', message: 'The batch expired before this line ran.' } }
    return upstreamFailures.unexpectedShape(provider.name, `a result line has the unknown type ${JSON.stringify(result.type)}`)
  }

  return {
    supports: takesLinesOf,

    async submit(provider, lines, signal) {
      const ids = LineIds.forLines(lines, CUSTOM_ID)
      const requests: { custom_id: string; params: Json }[] = []
      const rejected: RejectedLine[] = []
      const bodies = LineBodies.forSubmit()
      lines.forEach((line, i) => {
        const chat = bodies.chatBody(line)
        const params = chat instanceof GatewayError ? chat : translation.request(chat, String(chat.model ?? ''))
        if (params instanceof GatewayError) rejected.push({ customId: line.customId, error: params.toJSON().error })
        else requests.push({ custom_id: ids.providerId(i), params })
      })
      if (requests.length === 0) {
        return nothingToSubmit(provider, 'Anthropic', rejected)
      }
      const parts: JobPart[] = []
      for (const group of boundedGroups(requests, (r) => Buffer.byteLength(JSON.stringify(r)), MAX_REQUESTS, MAX_BYTES)) {
        const batch = await callJson(
          provider,
          { url: upstreamUrl(provider.baseUrl)`/messages/batches`, method: 'POST', headers: headers(provider), body: JSON.stringify({ requests: group }) },
          signal,
        )
        const failure =
          batch instanceof GatewayError
            ? batch
            : typeof batch.id !== 'string' || batch.id === ''
              ? upstreamFailures.unexpectedShape(provider.name, 'its batch has no id')
              : undefined
        if (failure) {
          await cancelParts(provider, parts, signal)
          return failure
        }
        parts.push({ id: (batch as Json).id as string })
      }
      return jobOfParts(parts, { ...ids.detail(), ...rejectedLines.detail(rejected), ...bodies.detail() })
    },

    async status(provider, job, signal) {
      const unknownState = (part: JobPart) => upstreamFailures.unexpectedShape(provider.name, `batch ${part.id} has no known processing_status`)
      const status = await statusOfParts(job, (part) => retrieve(provider, part.id, signal), statusOf, unknownState)
      return status instanceof GatewayError ? status : countingRejected(status, job)
    },

    async *results(provider, job, signal) {
      for (const line of rejectedLines.of(job)) yield rejectedResult(line)
      const ids = LineIds.ofJob(job)
      const bodies = LineBodies.ofJob(job)
      for (const part of partsOfJob(job)) {
        const response = await fetchBatchUpstream(
          provider,
          { url: upstreamUrl(provider.baseUrl)`/messages/batches/${part.id}/results`, method: 'GET', headers: headers(provider) },
          signal,
        )
        if (response instanceof GatewayError) {
          yield response
          return
        }
        for await (const line of jsonLines(provider, response.body)) {
          const result = line instanceof GatewayError ? line : resultOf(provider, line, ids)
          yield result instanceof GatewayError ? result : bodies.answer(result, '')
          if (result instanceof GatewayError) return
        }
      }
    },

    cancel: (provider, job, signal) => cancelParts(provider, partsOfJob(job), signal),

    /** Deletes each part's Message Batch (its requests and results) at Anthropic; only ended batches can be. */
    async cleanup(provider, job, signal) {
      let failure: GatewayError | undefined
      for (const part of partsOfJob(job)) {
        const deleted = await callJson(provider, { url: upstreamUrl(provider.baseUrl)`/messages/batches/${part.id}`, method: 'DELETE', headers: headers(provider) }, signal)
        if (deleted instanceof GatewayError) failure ??= deleted
      }
      return failure
    },
  }

  /** Asks each part still processing to cancel; an ended one is left as it is. */
  async function cancelParts(provider: ProviderInstance, parts: readonly JobPart[], signal: AbortSignal): Promise<undefined | GatewayError> {
    let failure: GatewayError | undefined
    for (const part of parts) {
      const batch = await retrieve(provider, part.id, signal)
      if (batch instanceof GatewayError) {
        failure ??= batch
        continue
      }
      if (batch.processing_status !== 'in_progress') continue
      const cancelled = await callJson(provider, { url: upstreamUrl(provider.baseUrl)`/messages/batches/${part.id}/cancel`, method: 'POST', headers: headers(provider) }, signal)
      if (cancelled instanceof GatewayError) failure ??= cancelled
    }
    return failure
  }
}

/** The HTTP status a live call would have had for each of Anthropic's error types (its errors page). */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  // 529 overloaded: reported as 503, as the live adapter does, a status every client retries.
  overloaded_error: 503,
}

function statusOf(batch: Json): ProviderBatchStatus | undefined {
  const c = (batch.request_counts ?? {}) as Json
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  const [processing, succeeded, errored, canceled, expired] = [n(c.processing), n(c.succeeded), n(c.errored), n(c.canceled), n(c.expired)]
  const counts = { total: processing + succeeded + errored + canceled + expired, completed: succeeded, failed: errored + canceled + expired }
  if (batch.processing_status === 'in_progress' || batch.processing_status === 'canceling') return { state: 'in_progress', counts }
  if (batch.processing_status !== 'ended') return undefined
  if (batch.cancel_initiated_at) return { state: 'cancelled', counts }
  return { state: expired > 0 ? 'expired' : 'completed', counts }
}
