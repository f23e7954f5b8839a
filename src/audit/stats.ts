/**
 * @module Request statistics per hour or day, the same on every backend: the store aggregates rows per bucket
 * (src/stores/types.ts AuditReader.statsRows); this fills empty buckets and sums up.
 */
import type { AuditReader } from '../stores/types.ts'
import type { AuditStats, AuditStatsQuery } from './entry.ts'

export async function auditStats(reader: AuditReader, q: AuditStatsQuery): Promise<AuditStats> {
  const byBucket = new Map((await reader.statsRows(q)).map((r) => [r.bucket, r]))
  const buckets = []
  let requests = 0
  let errors = 0
  let totalNs = 0
  for (let b = 0; q.from + b * q.bucketMs < q.to; b++) {
    const r = byBucket.get(b)
    const n = r?.requests ?? 0
    requests += n
    errors += (r?.status_4xx ?? 0) + (r?.status_5xx ?? 0)
    totalNs += (r?.avg_duration_ns ?? 0) * n
    buckets.push({
      start: new Date(q.from + b * q.bucketMs).toISOString(),
      requests: n,
      status_2xx: r?.status_2xx ?? 0,
      status_4xx: r?.status_4xx ?? 0,
      status_5xx: r?.status_5xx ?? 0,
      status_other: n - (r?.status_2xx ?? 0) - (r?.status_4xx ?? 0) - (r?.status_5xx ?? 0),
      avg_duration_ms: r ? r.avg_duration_ns / 1e6 : 0,
      max_duration_ms: r ? r.max_duration_ns / 1e6 : 0,
    })
  }
  return {
    interval: q.bucketMs >= 86_400_000 ? 'day' : 'hour',
    from: new Date(q.from).toISOString(),
    to: new Date(q.to).toISOString(),
    buckets,
    summary: { requests, errors, success_rate: requests > 0 ? (requests - errors) / requests : 0, avg_duration_ms: requests > 0 ? totalNs / requests / 1e6 : 0 },
  }
}
