/**
 * @module Audit rows to entries, for every SQL backend: a list row becomes the slim entry lists show (bodies left
 * out), a detail row is merged with its heavy payload (bodies, attempts). Each backend selects its columns under
 * these names, flags as 0/1 (SQLite keeps them so; PostgreSQL casts its booleans in the select).
 */
import type { AuditLogEntry, LogData } from '../../audit/entry.ts'
import { mergeHeavy, type HeavyPayload } from '../../audit/projection.ts'

export interface AuditLogRow {
  seq: number
  id: string
  ts: number
  duration_ns: number
  request_id: string
  requested_model: string
  resolved_model: string
  provider: string
  provider_name: string
  method: string
  path: string
  status_code: number
  stream: number
  error_type: string
  session_id: string
  user_path: string
  principal_id: string
  auth_key_id: string
  auth_method: string
  client_ip: string
  cache_type: string
  alias_used: number
  workflow_version_id: string
  conversation_payload: number
  data: string
  usage: string | null
  payload?: string | null
  response_id?: string | null
  previous_response_id?: string | null
}

function toEntry(row: AuditLogRow, data: LogData): AuditLogEntry {
  const entry: AuditLogEntry = {
    id: row.id,
    timestamp: new Date(row.ts).toISOString(),
    duration_ns: row.duration_ns,
    request_id: row.request_id,
    requested_model: row.requested_model,
    resolved_model: row.resolved_model,
    provider: row.provider,
    provider_name: row.provider_name,
    method: row.method,
    path: row.path,
    status_code: row.status_code,
    stream: row.stream === 1,
    error_type: row.error_type,
    session_id: row.session_id,
    user_path: row.user_path,
    principal_id: row.principal_id,
    auth_key_id: row.auth_key_id,
    auth_method: row.auth_method,
    client_ip: row.client_ip,
    cache_type: row.cache_type,
    alias_used: row.alias_used === 1,
    workflow_version_id: row.workflow_version_id,
    data,
  }
  if (row.usage) entry.usage = JSON.parse(row.usage)
  return entry
}

export const listEntry = (row: AuditLogRow): AuditLogEntry => ({
  ...toEntry(row, JSON.parse(row.data)),
  bodies_omitted: true,
  conversation_payload: row.conversation_payload === 1,
})
export const fullEntry = (row: AuditLogRow, options?: { attempts?: boolean }): AuditLogEntry =>
  toEntry(row, mergeHeavy(JSON.parse(row.data), row.payload ? (JSON.parse(row.payload) as HeavyPayload) : undefined, options))
