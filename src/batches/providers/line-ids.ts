/**
 * @module What a translating adapter remembers of its lines in the job's `detail`: the provider's ids for the
 * caller's `custom_id`s when the provider allows fewer (Anthropic: `^[a-zA-Z0-9_-]{1,64}$`), and the lines that
 * could not be translated (a `response_format` the model cannot follow), answered in the results as the 400 a live
 * call would have had. Only what differs from the lines is kept.
 */
import { GatewayError, type GatewayErrorBody } from '../../errors/gateway-error.ts'
import type { ProviderInstance } from '../../providers/types.ts'
import type { BatchResultLine, PreparedBatchLine, ProviderBatchJob, ProviderBatchStatus } from '../provider-batch-api.ts'

export class LineIds {
  /** `callers`: the caller's ids by index when the provider gets `line-<index>` instead; undefined when it gets them as they are. */
  private constructor(
    private readonly callers: readonly string[] | undefined,
    private readonly lines: readonly PreparedBatchLine[] = [],
  ) {}

  /** The caller's ids as they are when every one fits `pattern` and none repeats; else `line-<index>` for all. */
  static forLines(lines: readonly PreparedBatchLine[], pattern: RegExp): LineIds {
    const ids = lines.map((l) => l.customId)
    const fit = ids.every((id) => pattern.test(id)) && new Set(ids).size === ids.length
    return new LineIds(fit ? undefined : ids, lines)
  }

  static ofJob(job: ProviderBatchJob): LineIds {
    const text = job.detail.customIds
    return new LineIds(text === undefined ? undefined : (JSON.parse(text) as string[]))
  }

  /** The id the provider gets for the line at `index` (of the lines this was made for). */
  providerId(index: number): string {
    return this.callers ? `line-${index}` : this.lines[index]!.customId
  }

  callerId(providerId: string): string {
    if (!this.callers) return providerId
    const index = /^line-(\d+)$/.exec(providerId)?.[1]
    return (index !== undefined && this.callers[Number(index)]) || providerId
  }

  detail(): Record<string, string> {
    return this.callers ? { customIds: JSON.stringify(this.callers) } : {}
  }
}

export interface RejectedLine {
  customId: string
  error: GatewayErrorBody
}

export const rejectedLines = {
  detail: (lines: readonly RejectedLine[]): Record<string, string> => (lines.length > 0 ? { rejected: JSON.stringify(lines) } : {}),
  of: (job: ProviderBatchJob): RejectedLine[] => (job.detail.rejected === undefined ? [] : (JSON.parse(job.detail.rejected) as RejectedLine[])),
}

export function rejectedResult(line: RejectedLine): BatchResultLine {
  return { customId: line.customId, response: { statusCode: line.error.status_code, body: { error: line.error } }, error: null }
}

/** The job's status with its rejected lines counted as failed lines. */
export function countingRejected(status: ProviderBatchStatus, job: ProviderBatchJob): ProviderBatchStatus {
  const rejected = rejectedLines.of(job).length
  return rejected === 0 ? status : { ...status, counts: { ...status.counts, total: status.counts.total + rejected, failed: status.counts.failed + rejected } }
}

/** When no line could be translated there is no job: the first line's refusal says why. */
export function nothingToSubmit(provider: ProviderInstance, providerLabel: string, rejected: readonly RejectedLine[]): GatewayError {
  const first = rejected[0]?.error
  return new GatewayError({
    status: first?.status_code ?? 400,
    type: 'invalid_request_error',
    code: first?.code ?? 'empty_batch',
    message: first ? `No line of the batch can be sent to ${providerLabel}: ${first.message}` : 'A batch needs at least one line.',
    provider: provider.name,
  })
}
