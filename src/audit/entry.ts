/**
 * @module The audit log's records, field for field as the service description names them (AuditLogEntry,
 * LogData, RequestUsageSummary, AuditLogPage), plus the query shapes the admin API hands to the audit reader (src/stores/types.ts).
 */
import type { AttemptSnapshot, FailoverSnapshot, RequestRevisionSnapshot, WorkflowFeaturesSnapshot } from '../pipeline/snapshots.ts'

export interface LogData {
  api_key_hash?: string
  user_agent?: string
  temperature?: number
  max_tokens?: number
  /** From the configured tagging headers (docs/labels.md); empty when the request carried none. */
  labels?: string[]
  error_code?: string
  error_message?: string
  /** Provider an error came from; empty when the gateway raised it (authentication, validation, routing…). */
  error_provider?: string
  /** Set only on security lifecycle entries (`key.created`, `dashboard.sign_in`, …). */
  event_type?: string
  /** Security lifecycle entries: the object acted on, e.g. the revoked key's id. */
  event_subject_id?: string
  /** Security lifecycle entries: what happened, in words. */
  event_message?: string
  request_headers?: Record<string, string>
  response_headers?: Record<string, string>
  request_body?: unknown
  response_body?: unknown
  request_body_too_big_to_handle?: boolean
  response_body_too_big_to_handle?: boolean
  attempts?: AttemptSnapshot[]
  failover?: FailoverSnapshot
  request_revisions?: RequestRevisionSnapshot[]
  workflow_features?: WorkflowFeaturesSnapshot
  /** OpenTelemetry trace id, when the request was traced. */
  trace_id?: string
}

export interface RequestUsageSummary {
  input_tokens: number
  output_tokens: number
  total_tokens: number
  cached_input_tokens: number
  uncached_input_tokens: number
  cache_write_input_tokens: number
  cached_input_ratio: number
  estimated_cached_characters: number
  rewrite_tokens_saved: number
  rewrite_cost_saved: number
  /** USD at the gateway's prices; only when the usage meter priced the request (0 for an unknown model). */
  cost_usd?: number
  entries: number
}

export interface AuditLogEntry {
  id: string
  /** RFC 3339 (UTC, milliseconds): when the request started. */
  timestamp: string
  duration_ns: number
  request_id: string
  requested_model: string
  resolved_model: string
  provider: string
  provider_name: string
  method: string
  path: string
  status_code: number
  stream: boolean
  error_type: string
  session_id: string
  user_path: string
  principal_id: string
  auth_key_id: string
  auth_method: string
  client_ip: string
  cache_type: string
  alias_used: boolean
  workflow_version_id: string
  /** Only on list entries: heavy payloads were stripped (and the entry is persisted). */
  bodies_omitted?: boolean
  /** Only on list entries: the stripped bodies were shaped like a conversation. */
  conversation_payload?: boolean
  data: LogData
  usage?: RequestUsageSummary
}

export interface AuditLogPage {
  entries: AuditLogEntry[]
  limit: number
  offset: number
  total: number
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
}

export interface AuditStatsQuery {
  from: number
  to: number
  /** Bucket width in milliseconds. */
  bucketMs: number
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
