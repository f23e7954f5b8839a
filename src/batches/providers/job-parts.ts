/**
 * @module A job that is several provider batches: a provider takes one endpoint per batch (OpenAI), one model per
 * batch (Gemini), or a bounded number of requests and bytes per batch (all of them), so an adapter may submit a
 * service's lines as several batches. The job keeps each part's id (and what else the adapter needs of it) in its
 * `detail`, and its status is the parts' statuses combined.
 */
import { GatewayError } from '../../errors/gateway-error.ts'
import type { ProviderBatchJob, ProviderBatchState, ProviderBatchStatus } from '../provider-batch-api.ts'

/** One provider batch of a job: its id, and strings the adapter needs later (an input file id, a model). */
export type JobPart = { id: string } & Record<string, string>

export function jobOfParts(parts: readonly JobPart[], detail: Record<string, string> = {}): ProviderBatchJob {
  if (parts.length === 0) throw new Error('a job has at least one provider batch')
  return { id: parts[0]!.id, detail: { ...detail, parts: JSON.stringify(parts) } }
}

/** The job's parts; a job without `detail.parts` is its one batch. */
export function partsOfJob(job: ProviderBatchJob): JobPart[] {
  const text = job.detail.parts
  if (text === undefined) return [{ ...job.detail, id: job.id }]
  const parsed = JSON.parse(text) as unknown
  if (!Array.isArray(parsed) || parsed.some((p) => typeof p?.id !== 'string')) throw new Error(`job ${job.id} has unreadable parts`)
  return parsed as JobPart[]
}

/**
 * Still running while any part runs. Once all are final: their common state; else `completed` when any part
 * completed (the others' lines come back as errors or are missing), else cancelled, expired, failed in that order.
 */
export function combinedStatus(statuses: readonly ProviderBatchStatus[]): ProviderBatchStatus {
  const counts = { total: 0, completed: 0, failed: 0 }
  const errors: string[] = []
  for (const s of statuses) {
    counts.total += s.counts.total
    counts.completed += s.counts.completed
    counts.failed += s.counts.failed
    if (s.error) errors.push(s.error)
  }
  const states = new Set(statuses.map((s) => s.state))
  let state: ProviderBatchState
  if (states.has('in_progress')) state = 'in_progress'
  else if (states.size === 1) state = statuses[0]!.state
  else state = (['completed', 'cancelled', 'expired', 'failed'] as const).find((s) => states.has(s))!
  return errors.length > 0 ? { state, counts, error: errors.join('; ') } : { state, counts }
}

/**
 * The job's status: each part asked for (`fetchPart`) and read (`statusOf`), then combined. The first failure ends
 * it, and a part in no state the adapter knows is the provider's unexpected answer (`unknownState`).
 */
export async function statusOfParts<T>(
  job: ProviderBatchJob,
  fetchPart: (part: JobPart) => Promise<T | GatewayError>,
  statusOf: (answer: T) => ProviderBatchStatus | undefined,
  unknownState: (part: JobPart) => GatewayError,
): Promise<ProviderBatchStatus | GatewayError> {
  const statuses: ProviderBatchStatus[] = []
  for (const part of partsOfJob(job)) {
    const answer = await fetchPart(part)
    if (answer instanceof GatewayError) return answer
    const status = statusOf(answer)
    if (!status) return unknownState(part)
    statuses.push(status)
  }
  return combinedStatus(statuses)
}

/**
 * Consecutive groups of at most `maxCount` items and `maxBytes` bytes (an item larger than `maxBytes` alone in
 * its group, for the provider to refuse), in order.
 */
export function boundedGroups<T>(items: readonly T[], sizeOf: (item: T) => number, maxCount: number, maxBytes: number): T[][] {
  const groups: T[][] = []
  let current: T[] = []
  let bytes = 0
  for (const item of items) {
    const size = sizeOf(item)
    if (current.length > 0 && (current.length >= maxCount || bytes + size > maxBytes)) {
      groups.push(current)
      current = []
      bytes = 0
    }
    current.push(item)
    bytes += size
  }
  if (current.length > 0) groups.push(current)
  return groups
}
