/**
 * @module A list query's filters as SQL conditions, every value bound (`?` placeholders), for every SQL backend:
 * the time window, the column filters, and the search's UUID lookup and punctuation-only scan. What differs by
 * backend comes from its dialect: how a column is named, how a flag is stored, how labels are joined, and the
 * words of a search, which each backend matches against its own text index.
 */
import type { AuditLogQuery } from '../../audit/entry.ts'
import { planSearch } from '../../audit/search.ts'

export type Param = string | number | boolean
export type Clause = { sql: string; params: Param[] }

export const and = (clauses: Clause[]): Clause => ({ sql: clauses.map((c) => c.sql).join(' AND '), params: clauses.flatMap((c) => c.params) })

export interface AuditQueryDialect {
  /** An audit_log column as the backend's query names it (with its table alias, if any). */
  column(name: string): string
  /** A boolean column's value as the backend stores it. */
  flag(value: boolean): Param
  /** The entries that carry the label, within the query's window. */
  label(label: string, q: AuditLogQuery): Clause
  /** A user path's subtree, when the backend wants another form than `subtree` below. */
  subtree?(column: string, path: string): Clause
}

/**
 * A subtree as a range: '/a/' ≤ x < '/a0' ('0' follows '/' in byte order, the column's collation on both
 * backends), so the (user_path, ts) index serves it.
 */
export const subtree = (column: string, path: string): Clause => ({ sql: `(${column} = ? OR (${column} >= ? AND ${column} < ?))`, params: [path, `${path}/`, `${path}0`] })

export interface AuditConditions {
  /** The time window on `ts`. */
  window: Clause[]
  filters: Clause[]
  /** The search's words (in order, the last a prefix), for the backend's text index; absent when it has none. */
  words?: string[]
}

export function auditConditions(q: AuditLogQuery, dialect: AuditQueryDialect): AuditConditions {
  const c = dialect.column
  const window: Clause[] = []
  const filters: Clause[] = []
  const add = (sql: string, ...params: Param[]) => filters.push({ sql, params })
  if (q.from !== undefined) window.push({ sql: `${c('ts')} >= ?`, params: [q.from] })
  if (q.to !== undefined) window.push({ sql: `${c('ts')} < ?`, params: [q.to] })
  if (q.requestedModel !== undefined) add(`${c('requested_model')} = ?`, q.requestedModel)
  if (q.provider !== undefined) add(`(${c('provider')} = ? OR ${c('provider_name')} = ?)`, q.provider, q.provider)
  if (q.method !== undefined) add(`${c('method')} = ?`, q.method)
  if (q.path !== undefined) add(`${c('path')} = ?`, q.path)
  if (q.userPath !== undefined && q.userPath !== '/') filters.push((dialect.subtree ?? subtree)(c('user_path'), q.userPath))
  if (q.sessionId !== undefined) add(`${c('session_id')} = ?`, q.sessionId)
  if (q.errorType !== undefined) add(`${c('error_type')} = ?`, q.errorType)
  if (q.statusCode !== undefined) add(`${c('status_code')} = ?`, q.statusCode)
  if (q.stream !== undefined) add(`${c('stream')} = ?`, dialect.flag(q.stream))
  if (q.label !== undefined) filters.push(dialect.label(q.label, q))
  if (q.requestsOnly) add(`${c('event_type')} = ''`)
  if (q.search === undefined) return { window, filters }
  const plan = planSearch(q.search)
  if (plan.kind === 'words') return { window, filters, words: plan.words }
  if (plan.kind === 'uuid') {
    const marks = plan.values.map(() => '?').join(', ')
    // `request_id <> id` and `session_id <> ''` match PostgreSQL's partial indexes (a request id equal to the entry
    // id is found through `id`); a bound value proves neither to a generic plan.
    add(
      `(${c('id')} IN (${marks}) OR (${c('request_id')} IN (${marks}) AND ${c('request_id')} <> ${c('id')}) OR (${c('session_id')} IN (${marks}) AND ${c('session_id')} <> ''))`,
      ...plan.values,
      ...plan.values,
      ...plan.values,
    )
  } else {
    // Only punctuation (e.g. "/"): no words to look up, so scan the hot columns of the window.
    const like = `%${q.search.trim().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
    const text = ['request_id', 'requested_model', 'provider_name', 'method', 'path', 'session_id', 'error_type'].map(c).join(" || ' ' || ")
    add(`(${text}) LIKE ? ESCAPE '\\'`, like)
  }
  return { window, filters }
}
