/**
 * @module How the SQLite audit store reads: audit_log rows to entries (slim for lists, merged with the heavy
 * payload for detail), and a list query's conditions as bound SQL clauses.
 */
import type { AuditLogEntry, AuditLogQuery, LogData } from '../../audit/entry.ts'
import { mergeHeavy, type HeavyPayload } from '../../audit/projection.ts'
import { planSearch } from '../../audit/search.ts'

/** Entries per millisecond a key can tell apart; more in one millisecond borrow the next one's keys. */
export const SEQ_PER_MS = 1024

export const LIGHT_COLUMNS =
  'seq, id, ts, duration_ns, request_id, requested_model, resolved_model, provider, provider_name, method, path, status_code, stream, error_type, session_id, user_path, principal_id, auth_key_id, auth_method, client_ip, cache_type, alias_used, workflow_version_id, conversation_payload, data, usage'

export interface Row {
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

export type Param = string | number

function toEntry(row: Row, data: LogData): AuditLogEntry {
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

export const listEntry = (row: Row): AuditLogEntry => ({ ...toEntry(row, JSON.parse(row.data)), bodies_omitted: true, conversation_payload: row.conversation_payload === 1 })
export const fullEntry = (row: Row, options?: { attempts?: boolean }): AuditLogEntry =>
  toEntry(row, mergeHeavy(JSON.parse(row.data), row.payload ? (JSON.parse(row.payload) as HeavyPayload) : undefined, options))

export type Clause = { sql: string; params: Param[] }

export const and = (clauses: Clause[]): Clause => ({ sql: clauses.map((c) => c.sql).join(' AND '), params: clauses.flatMap((c) => c.params) })

/** The search index's key range for a time window (keys follow start time). */
export function searchRange(q: AuditLogQuery, column: string): Clause[] {
  const out: Clause[] = []
  if (q.from !== undefined) out.push({ sql: `${column} >= ?`, params: [q.from * SEQ_PER_MS] })
  if (q.to !== undefined) out.push({ sql: `${column} < ?`, params: [q.to * SEQ_PER_MS] })
  return out
}

/**
 * A list query's conditions, every value bound: the time window, the column filters, and the search (a UUID
 * lookup, an FTS5 phrase `match`, or a substring scan for a term without words).
 */
export function conditions(q: AuditLogQuery): { window: Clause[]; filters: Clause[]; match?: string } {
  const window: Clause[] = []
  const filters: Clause[] = []
  const add = (sql: string, ...params: Param[]) => filters.push({ sql, params })
  if (q.from !== undefined) window.push({ sql: 'ts >= ?', params: [q.from] })
  if (q.to !== undefined) window.push({ sql: 'ts < ?', params: [q.to] })
  if (q.requestedModel !== undefined) add('requested_model = ?', q.requestedModel)
  if (q.provider !== undefined) add('(provider = ? OR provider_name = ?)', q.provider, q.provider)
  if (q.method !== undefined) add('method = ?', q.method)
  if (q.path !== undefined) add('path = ?', q.path)
  // A subtree as a range: '/a/' ≤ x < '/a0' ('0' follows '/'), so the (user_path, ts) index serves it.
  if (q.userPath !== undefined && q.userPath !== '/') add('(user_path = ? OR (user_path >= ? AND user_path < ?))', q.userPath, `${q.userPath}/`, `${q.userPath}0`)
  if (q.sessionId !== undefined) add('session_id = ?', q.sessionId)
  if (q.errorType !== undefined) add('error_type = ?', q.errorType)
  if (q.statusCode !== undefined) add('status_code = ?', q.statusCode)
  if (q.stream !== undefined) add('stream = ?', q.stream ? 1 : 0)
  if (q.label !== undefined) {
    const range = and([{ sql: 'label = ?', params: [q.label] }, ...searchRange(q, 'seq')])
    add(`seq IN (SELECT seq FROM audit_log_labels WHERE ${range.sql})`, ...range.params)
  }
  if (q.search === undefined) return { window, filters }
  const plan = planSearch(q.search)
  if (plan.kind === 'words') return { window, filters, match: `"${plan.words.join(' ')}"*` }
  if (plan.kind === 'uuid') {
    const marks = plan.values.map(() => '?').join(', ')
    // `request_id <> id` matches the partial index: a request id equal to the entry id is found through `id`.
    add(`(id IN (${marks}) OR (request_id IN (${marks}) AND request_id <> id) OR session_id IN (${marks}))`, ...plan.values, ...plan.values, ...plan.values)
  } else {
    // Only punctuation (e.g. "/"): no words to look up, so scan the hot columns of the window.
    const like = `%${q.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    add("(request_id || ' ' || requested_model || ' ' || provider_name || ' ' || method || ' ' || path || ' ' || session_id || ' ' || error_type) LIKE ? ESCAPE '\\'", like)
  }
  return { window, filters }
}
