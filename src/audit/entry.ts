/**
 * @module The audit log's records, field for field as the service description names them (AuditLogEntry,
 * LogData, RequestUsageSummary, AuditLogPage), plus the query shapes the admin API hands to the audit reader (src/stores/types.ts).
 */
import type { z } from 'zod'
import type { auditLogEntrySchema, logDataSchema, requestUsageSummarySchema } from './schemas.ts'

/**
 * The entry's shape has one source, the zod schemas in ./schemas.ts: they give these types, the OpenAPI document
 * of /admin/audit and the dashboard's parser (src/dashboard/api/schemas.ts). Add a field there.
 */
export type LogData = z.infer<typeof logDataSchema>
export type RequestUsageSummary = z.infer<typeof requestUsageSummarySchema>
export type AuditLogEntry = z.infer<typeof auditLogEntrySchema>

export interface AuditLogPage {
  entries: AuditLogEntry[]
  limit: number
  offset: number
  /** Matches counted up to the query's `countUpTo`: exact when `total_relation` is `eq`, a lower bound when `gte`. */
  total: number
  total_relation: 'eq' | 'gte'
}

/** Filters of GET /admin/audit/log after validation. Times are epoch milliseconds, `to` exclusive. */
export interface AuditLogQuery {
  /** Absent when a session is asked for without dates: the whole session, whatever its age. */
  from?: number
  to?: number
  requestedModel?: string
  provider?: string
  method?: string
  path?: string
  /** Normalised; `/` means every path and is not sent to the store. */
  userPath?: string
  sessionId?: string
  errorType?: string
  statusCode?: number
  stream?: boolean
  /** Entries carrying this label. */
  label?: string
  search?: string
  limit: number
  offset: number
  /** Count the matches up to this many and stop (the page's total is then a lower bound); absent: count them all. */
  countUpTo?: number
  /** Request entries only, no security events (a reader without `audit.security_events`). */
  requestsOnly?: boolean
}

export interface AuditStatsQuery {
  from: number
  to: number
  /** Bucket width in milliseconds. */
  bucketMs: number
  /** Only entries of this user path and below it (a scoped principal's subtree); absent: every entry. */
  userPath?: string
}

export interface AuditStatsBucket {
  /** RFC 3339 start of the bucket. */
  start: string
  requests: number
  status_2xx: number
  status_4xx: number
  status_5xx: number
  status_other: number
  avg_duration_ms: number
  max_duration_ms: number
}

export interface AuditStats {
  interval: 'hour' | 'day'
  from: string
  to: string
  buckets: AuditStatsBucket[]
  summary: { requests: number; errors: number; success_rate: number; avg_duration_ms: number }
}

export interface AuditConversation {
  anchor_id: string
  /** Oldest first. */
  entries: AuditLogEntry[]
  /** More entries belong to the thread than were returned. */
  truncated: boolean
}
