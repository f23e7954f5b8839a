/**
 * @module The list's total, for every backend: matches are counted up to `countUpTo` + 1 and no further (as
 * Elasticsearch's `track_total_hits`), so a filter that matches half a million entries costs as much to count as one
 * that matches ten thousand. One more than the cap tells "exactly the cap" from "more than the cap".
 */
import type { AuditLogPage, AuditLogQuery } from '../../audit/entry.ts'

/** How many matches the store counts at most (a `LIMIT` on its count), or undefined to count them all. */
export const countLimit = (q: AuditLogQuery): number | undefined => (q.countUpTo === undefined ? undefined : q.countUpTo + 1)

/**
 * The page's `total` and `total_relation` from what the store counted (at most `countLimit`). Past the cap, a page
 * that is not full and not empty still gives the exact total: it holds the last matches.
 */
export function pageTotal(counted: number, q: AuditLogQuery, listed: number): Pick<AuditLogPage, 'total' | 'total_relation'> {
  if (q.countUpTo === undefined || counted <= q.countUpTo) return { total: counted, total_relation: 'eq' }
  if (listed > 0 && listed < q.limit) return { total: q.offset + listed, total_relation: 'eq' }
  return { total: q.countUpTo, total_relation: 'gte' }
}
