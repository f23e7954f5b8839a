/**
 * @module The SQLite audit store's side of a list query (the shared part is ../audit-query): flags as 0/1, labels
 * and the search index keyed by `seq` (start time × SEQ_PER_MS), and the search's words as an FTS5 phrase.
 */
import type { AuditLogQuery } from '../../audit/entry.ts'
import { type AuditQueryDialect, and, auditConditions, type Clause, type Param } from '../audit-query/conditions.ts'
import { countLimit } from '../audit-query/total.ts'

/** Entries per millisecond a key can tell apart; more in one millisecond borrow the next one's keys. */
export const SEQ_PER_MS = 1024

export const LIGHT_COLUMNS =
  'seq, id, ts, duration_ns, request_id, requested_model, resolved_model, provider, provider_name, method, path, status_code, stream, error_type, session_id, user_path, principal_id, auth_key_id, auth_method, client_ip, cache_type, alias_used, workflow_version_id, conversation_payload, data, usage'

/** The search index's key range for a time window (keys follow start time). */
export function searchRange(q: AuditLogQuery, column: string): Clause[] {
  const out: Clause[] = []
  if (q.from !== undefined) out.push({ sql: `${column} >= ?`, params: [q.from * SEQ_PER_MS] })
  if (q.to !== undefined) out.push({ sql: `${column} < ?`, params: [q.to * SEQ_PER_MS] })
  return out
}

const sqliteDialect: AuditQueryDialect = {
  column: (name) => name,
  flag: (value) => (value ? 1 : 0),
  label(label, q) {
    const range = and([{ sql: 'label = ?', params: [label] }, ...searchRange(q, 'seq')])
    return { sql: `seq IN (SELECT seq FROM audit_log_labels WHERE ${range.sql})`, params: range.params }
  },
}

/** A list query's conditions; the search's words as an FTS5 phrase `match` (the last word a prefix). */
export function conditions(q: AuditLogQuery): { window: Clause[]; filters: Clause[]; match?: string } {
  const { window, filters, words } = auditConditions(q, sqliteDialect)
  return words === undefined ? { window, filters } : { window, filters, match: `"${words.join(' ')}"*` }
}

/** The count of `SELECT <key> FROM <rest>`, stopped at the query's `countLimit` (../audit-query/total.ts). */
export function countOf(key: string, rest: string, params: Param[], q: AuditLogQuery): Clause {
  const upTo = countLimit(q)
  return upTo === undefined
    ? { sql: `SELECT COUNT(*) AS n FROM ${rest}`, params }
    : { sql: `SELECT COUNT(*) AS n FROM (SELECT ${key} FROM ${rest} LIMIT ?)`, params: [...params, upTo] }
}
