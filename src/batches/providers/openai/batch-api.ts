/**
 * @module OpenAI-family native batches (OpenAI, Azure OpenAI, Groq): the lines, grouped by endpoint (a batch takes
 * one) and bounded per input file, are uploaded as JSONL to the provider's `/files` (purpose `batch`) as a stream;
 * one `/batches` is created per file; the job is polled through `GET /batches/{id}`; the output and error files are
 * read line by line as they download; lines are already in the provider's format, so results pass through with
 * their `custom_id`s.
 */
import { GatewayError, gatewayErrors } from '../../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../../providers/types.ts'
import { upstreamFailures } from '../../../providers/upstream-errors.ts'
import { upstreamUrl } from '../../../providers/upstream-url.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchApi, ProviderBatchJob, ProviderBatchState, ProviderBatchStatus } from '../../provider-batch-api.ts'
import { boundedGroups, type JobPart, jobOfParts, partsOfJob, statusOfParts } from '../job-parts.ts'
import { rowOf } from '../line-row.ts'
import { missingLineResult } from '../missing-lines.ts'
import { callJson, fetchBatchUpstream, jsonLines } from '../provider-http.ts'
import { MAX_BYTES_PER_FILE, MAX_REQUESTS_PER_FILE, type OpenAIBatchDialect } from './dialects.ts'
import { jsonlUpload } from './jsonl-upload.ts'

type Json = Record<string, unknown>

const STATES: Readonly<Record<string, ProviderBatchState>> = {
  validating: 'in_progress',
  in_progress: 'in_progress',
  finalizing: 'in_progress',
  cancelling: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  expired: 'expired',
  cancelled: 'cancelled',
}

export function openaiBatchApi(dialect: OpenAIBatchDialect): ProviderBatchApi {
  const under = (provider: ProviderInstance) => upstreamUrl(provider.baseUrl, dialect.query(provider))
  const jsonHeaders = (provider: ProviderInstance) => ({ ...dialect.credentialHeaders(provider), 'content-type': 'application/json', accept: 'application/json' })

  async function submitPart(provider: ProviderInstance, endpoint: string, lines: readonly string[], signal: AbortSignal): Promise<JobPart | GatewayError> {
    const upload = jsonlUpload(lines, 'batch')
    const file = await callJson(
      provider,
      { url: under(provider)`/files`, method: 'POST', headers: { ...dialect.credentialHeaders(provider), 'content-type': upload.contentType }, body: upload.body },
      signal,
    )
    if (file instanceof GatewayError) return file
    if (typeof file.id !== 'string' || file.id === '') return upstreamFailures.unexpectedShape(provider.name, 'its file object has no id')
    const batch = await callJson(
      provider,
      { url: under(provider)`/batches`, method: 'POST', headers: jsonHeaders(provider), body: JSON.stringify({ input_file_id: file.id, endpoint, completion_window: '24h' }) },
      signal,
    )
    if (batch instanceof GatewayError || typeof batch.id !== 'string' || batch.id === '') {
      // The uploaded file is of no use without its batch.
      await fetchBatchUpstream(provider, { url: under(provider)`/files/${file.id}`, method: 'DELETE', headers: jsonHeaders(provider) }, signal).catch(() => undefined)
      return batch instanceof GatewayError ? batch : upstreamFailures.unexpectedShape(provider.name, 'its batch object has no id')
    }
    return { id: batch.id, inputFileId: file.id }
  }

  const retrieve = (provider: ProviderInstance, id: string, signal: AbortSignal) =>
    callJson(provider, { url: under(provider)`/batches/${id}`, method: 'GET', headers: jsonHeaders(provider) }, signal)

  /** A provider file's JSON lines as they download; a failure is the last item. */
  async function* downloadedLines(provider: ProviderInstance, fileId: string, signal: AbortSignal): AsyncGenerator<Json | GatewayError> {
    const response = await fetchBatchUpstream(provider, { url: under(provider)`/files/${fileId}/content`, method: 'GET', headers: dialect.credentialHeaders(provider) }, signal)
    if (response instanceof GatewayError) {
      yield response
      return
    }
    for await (const line of jsonLines(provider, response.body)) {
      yield line
      if (line instanceof GatewayError) return
    }
  }

  async function* fileLines(provider: ProviderInstance, fileId: string, signal: AbortSignal): AsyncGenerator<BatchResultLine | GatewayError> {
    for await (const line of downloadedLines(provider, fileId, signal)) yield line instanceof GatewayError ? line : resultLine(provider, line)
  }

  /** The custom_ids of a part's input file, as they download. */
  async function* inputLines(provider: ProviderInstance, fileId: string | undefined, signal: AbortSignal): AsyncGenerator<string | GatewayError> {
    if (!fileId) return
    for await (const line of downloadedLines(provider, fileId, signal)) {
      if (line instanceof GatewayError) yield line
      else if (typeof line.custom_id === 'string') yield line.custom_id
    }
  }

  return {
    supports(endpointId) {
      const row = rowOf(endpointId)
      return row !== undefined && dialect.apis.has(row.api)
    },

    async submit(provider, lines, signal) {
      const unavailable = dialect.unavailable?.(provider)
      if (unavailable) return gatewayErrors.invalidRequest(unavailable, null, 'batch_unsupported')
      const byEndpoint = new Map<string, string[]>()
      for (const line of lines) {
        const row = rowOf(line.endpointId)
        if (!row || !dialect.apis.has(row.api)) throw new Error(`the ${provider.type} batch API was given a ${line.endpointId} line, which it does not support`)
        const endpoint = dialect.linePath(provider, row.path)
        const text = JSON.stringify({ custom_id: line.customId, method: 'POST', url: endpoint, body: line.body })
        const group = byEndpoint.get(endpoint)
        if (group) group.push(text)
        else byEndpoint.set(endpoint, [text])
      }
      const parts: JobPart[] = []
      for (const [endpoint, texts] of byEndpoint) {
        for (const group of boundedGroups(texts, (t) => Buffer.byteLength(t) + 1, MAX_REQUESTS_PER_FILE, MAX_BYTES_PER_FILE)) {
          const part = await submitPart(provider, endpoint, group, signal)
          if (part instanceof GatewayError) {
            await cancelParts(provider, parts, signal)
            return part
          }
          parts.push(part)
        }
      }
      if (parts.length === 0) return gatewayErrors.invalidRequest('A batch needs at least one line.', null, 'empty_batch')
      return jobOfParts(parts)
    },

    status(provider, job, signal) {
      const unknownState = (part: JobPart) => upstreamFailures.unexpectedShape(provider.name, `batch ${part.id} has no known status`)
      return statusOfParts(job, (part) => retrieve(provider, part.id, signal), statusOf, unknownState)
    },

    async *results(provider, job, signal) {
      for (const part of partsOfJob(job)) {
        const batch = await retrieve(provider, part.id, signal)
        if (batch instanceof GatewayError) {
          yield batch
          return
        }
        const seen = new Set<string>()
        for (const fileId of [batch.output_file_id, batch.error_file_id]) {
          if (typeof fileId !== 'string' || fileId === '') continue
          for await (const line of fileLines(provider, fileId, signal)) {
            yield line
            if (line instanceof GatewayError) return
            seen.add(line.customId)
          }
        }
        const status = statusOf(batch)
        if (status?.state === 'completed' && seen.size >= status.counts.total) continue
        // A batch that failed validation has no files, and one cut short may leave lines out: the input file names them all.
        for await (const line of inputLines(provider, part.inputFileId, signal)) {
          if (line instanceof GatewayError) {
            yield line
            return
          }
          if (!seen.has(line)) yield missingLineResult(line, status?.state, status?.error)
        }
      }
    },

    async cancel(provider, job, signal) {
      return cancelParts(provider, partsOfJob(job), signal)
    },

    async cleanup(provider, job, signal) {
      let failure: GatewayError | undefined
      for (const part of partsOfJob(job)) {
        const batch = await retrieve(provider, part.id, signal)
        if (batch instanceof GatewayError) {
          failure ??= batch
          continue
        }
        const fileIds = new Set(
          [part.inputFileId, batch.input_file_id, batch.output_file_id, batch.error_file_id].filter((id): id is string => typeof id === 'string' && id !== ''),
        )
        for (const fileId of fileIds) {
          const deleted = await callJson(provider, { url: under(provider)`/files/${fileId}`, method: 'DELETE', headers: jsonHeaders(provider) }, signal)
          if (deleted instanceof GatewayError) failure ??= deleted
        }
      }
      return failure
    },
  }

  /** Cancels the parts still running; a part already final is left as it is. */
  async function cancelParts(provider: ProviderInstance, parts: readonly JobPart[], signal: AbortSignal): Promise<undefined | GatewayError> {
    let failure: GatewayError | undefined
    for (const part of parts) {
      const batch = await retrieve(provider, part.id, signal)
      if (batch instanceof GatewayError) {
        failure ??= batch
        continue
      }
      if (statusOf(batch)?.state !== 'in_progress' || batch.status === 'cancelling') continue
      const cancelled = await callJson(provider, { url: under(provider)`/batches/${part.id}/cancel`, method: 'POST', headers: jsonHeaders(provider) }, signal)
      if (cancelled instanceof GatewayError) failure ??= cancelled
    }
    return failure
  }
}

function statusOf(batch: Json): ProviderBatchStatus | undefined {
  const state = typeof batch.status === 'string' ? STATES[batch.status] : undefined
  if (!state) return undefined
  const counts = (batch.request_counts ?? {}) as Json
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  const status: ProviderBatchStatus = { state, counts: { total: n(counts.total), completed: n(counts.completed), failed: n(counts.failed) } }
  const errors = ((batch.errors as Json | null)?.data ?? []) as Json[]
  if (state === 'failed' && Array.isArray(errors) && errors.length > 0) {
    status.error = errors
      .slice(0, 5)
      .map((e) => `${typeof e.line === 'number' ? `line ${e.line}: ` : ''}${String(e.message ?? e.code ?? 'failed')}`)
      .join('; ')
  } else if (state === 'failed') status.error = 'The provider failed the batch.'
  return status
}

/** A line of an output or error file (`{custom_id, response: {status_code, body}, error}`), as the seam carries it. */
function resultLine(provider: ProviderInstance, line: Json): BatchResultLine | GatewayError {
  if (typeof line.custom_id !== 'string') return upstreamFailures.unexpectedShape(provider.name, 'a result line has no custom_id')
  const response = line.response as Json | null | undefined
  const error = line.error as Json | null | undefined
  if (response && typeof response.status_code === 'number')
    return { customId: line.custom_id, response: { statusCode: response.status_code, body: response.body ?? null }, error: null }
  return {
    customId: line.custom_id,
    response: null,
    error: {
      code: typeof error?.code === 'string' ? error.code : 'batch_request_failed',
      message: typeof error?.message === 'string' ? error.message : 'The provider reported no answer for this line.',
    },
  }
}
