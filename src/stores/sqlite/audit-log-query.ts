/**
 * @module The SQLite audit store's side of a list query (the shared part is ../audit-query): flags as 0/1, labels
 * and the search index keyed by `seq` (start time × SEQ_PER_MS), and the search's words as an FTS5 phrase.
 *
 * Session ids and client request ids have no B-tree index (migration 0001): with one entry in a random place of
 * such an index per row, each batch rewrote hundreds of 16 KiB pages, the largest cost of storing an entry once
 * the log is large. Both are in the search text, whose FTS5 index is written in sorted runs, so a lookup finds its
 * candidates there (the id's words as a phrase) and the exact comparison, kept beside it, drops the rest.
 */
import type { AuditLogQuery } from '../../audit/entry.ts'
import { planSearch } from '../../audit/search.ts'
import { type AuditQueryDialect, and, auditConditions, type Clause, type Param } from '../audit-query/conditions.ts'
import { countLimit } from '../audit-query/total.ts'

/** Entries per millisecond a key can tell apart; more in one millisecond borrow the next one's keys. */
export const SEQ_PER_MS = 1024

export const LIGHT_COLUMNS =
  'seq, id, ts, duration_ns, request_id, requested_model, resolved_model, provider, provider_name, method, path, status_code, stream, error_type, session_id, user_path, principal_id, auth_key_id, auth_method, client_ip, cache_type, alias_used, workflow_version_id, conversation_payload, data, usage'

/** The search index's key range for a time window (keys follow start time). */
export function searchRange(q: Pick<AuditLogQuery, 'from' | 'to'>, column: string): Clause[] {
  const out: Clause[] = []
  if (q.from !== undefined) out.push({ sql: `${column} >= ?`, params: [q.from * SEQ_PER_MS] })
  if (q.to !== undefined) out.push({ sql: `${column} < ?`, params: [q.to * SEQ_PER_MS] })
  return out
}

const sqliteDialect: AuditQueryDialect = {
  column: (name) => name,
  flag: (value) => (value ? 1 : 0),
  // `+seq`: with other filters, those drive and each candidate is probed against the label's entries; looking up
  // every labelled entry of the window by key took 250–460 ms at 1,000,000 entries. A label alone is listed from the
  // labels table itself (SqliteAuditStore.list).
  label(label, q) {
    const range = and([{ sql: 'label = ?', params: [label] }, ...searchRange(q, 'seq')])
    return { sql: `+seq IN (SELECT seq FROM audit_log_labels WHERE ${range.sql})`, params: range.params }
  },
}

/** An FTS5 phrase of exactly the words of `value`, tokenized as the index tokenizes the search text. */
const phrase = (value: string) => `"${value.replace(/"/g, '""')}"`

/** True when `value` has a word for the search index (a letter or digit); an id of punctuation alone has none. */
const hasWords = (value: string) => /[\p{L}\p{N}]/u.test(value)

/** The entries whose search text holds `value`'s words in a row, within the query's window (a candidate set). */
export function searchCandidates(value: string, q: Pick<AuditLogQuery, 'from' | 'to'>, key = 'seq'): Clause | undefined {
  if (!hasWords(value)) return undefined
  const where = and([{ sql: 'audit_log_search MATCH ?', params: [phrase(value)] }, ...searchRange(q, 'rowid')])
  return { sql: `${key} IN (SELECT rowid FROM audit_log_search WHERE ${where.sql})`, params: where.params }
}

/**
 * A list query's conditions; the search's words as an FTS5 phrase `match` (the last word a prefix). Beside the
 * shared conditions: the search index's candidates for a session id or a UUID search, and the terms that let
 * SQLite use the partial status and error indexes (it uses a partial index only when the query states its
 * condition, literally).
 */
export function conditions(q: AuditLogQuery): { window: Clause[]; filters: Clause[]; match?: string } {
  const { window, filters, words } = auditConditions(q, sqliteDialect)
  if (q.errorType !== undefined) filters.push({ sql: "error_type <> ''", params: [] })
  if (q.statusCode !== undefined && q.statusCode !== 200) filters.push({ sql: 'status_code <> 200', params: [] })
  const session = q.sessionId === undefined ? undefined : searchCandidates(q.sessionId, q)
  if (session) filters.push(session)
  const plan = q.search === undefined ? undefined : planSearch(q.search)
  if (plan?.kind === 'uuid') {
    // The entry's own id has its unique index; a client's request id or a session id equal to the UUID is in the search text.
    const candidates = searchCandidates(plan.values[0]!, q)!
    filters.push({ sql: `(id IN (${plan.values.map(() => '?').join(', ')}) OR ${candidates.sql})`, params: [...plan.values, ...candidates.params] })
  }
  return words === undefined ? { window, filters } : { window, filters, match: `"${words.join(' ')}"*` }
}

/** The count of `SELECT <key> FROM <rest>`, stopped at the query's `countLimit` (../audit-query/total.ts). */
export function countOf(key: string, rest: string, params: Param[], q: AuditLogQuery): Clause {
  const upTo = countLimit(q)
  return upTo === undefined
    ? { sql: `SELECT COUNT(*) AS n FROM ${rest}`, params }
    : { sql: `SELECT COUNT(*) AS n FROM (SELECT ${key} FROM ${rest} LIMIT ?)`, params: [...params, upTo] }
}
