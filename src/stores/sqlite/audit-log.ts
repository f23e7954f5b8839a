/**
 * @module The audit log in SQLite. Filterable fields are columns, read through a few indexes chosen for what they
 * cost each write (schema.ts): a filtered page is an index range read in time order, of the filter's own index
 * or of the wide time index; session ids and client request ids are found through the search index
 * (audit-log-query.ts). LogData is JSON split in two tables: the light part
 * (`audit_log.data`) that lists show, and the heavy part (`audit_log_payloads`: bodies, attempts' error bodies,
 * revision bodies) that only the detail view reads. Attempts stay inside the JSON rather than in a child table:
 * they are never filtered on their own and always read with their entry, so a child table would only add an
 * insert per attempt and a join per page. Search uses a contentless FTS5 index over the searchable text.
 *
 * The row key `seq` is time-ordered (start time in ms × 1024 + a counter), so the FTS index, keyed by it, can
 * hand out a search's matches newest first within a time window (a rowid range) and stop after one page.
 *
 * Raw prepared statements rather than drizzle, on purpose: inserts are the measured hot path (bench/audit-overhead.sh;
 * the write thread only binds values), and list reads are tuned query plans over FTS5 and the covering indexes
 * (bench/audit-queries.ts). The tables themselves are declared in schema.ts like every other.
 */
import type { Database } from 'bun:sqlite'
import type { AuditLogQuery, AuditStatsQuery } from '../../audit/entry.ts'
import { AUDIT_ROW_COLUMNS, auditRowColumns, auditRowData, auditRowPayload, auditRowSearchText, type AuditRow } from '../../audit/record.ts'
import type { AuditBatchWriter } from '../write-path/audit-writer.ts'
import type { AuditReader, AuditStatsRow, AuditThreadEntry, ThreadFilter } from '../types.ts'
import { and, type Clause, type Param, subtree } from '../audit-query/conditions.ts'
import { type AuditLogRow, fullEntry, listEntry } from '../audit-query/rows.ts'
import { pageTotal } from '../audit-query/total.ts'
import { conditions, countOf, LIGHT_COLUMNS, SEQ_PER_MS, searchCandidates, searchRange } from './audit-log-query.ts'

export { SEQ_PER_MS }

/** The light data JSON has labels only when this occurs in it (an empty list has `"labels":[]`). */
const HAS_LABELS = '"labels":["'

const FULL_SELECT = 'SELECT a.*, p.payload FROM audit_log a LEFT JOIN audit_log_payloads p ON p.seq = a.seq'

/** A row as a thread member: full entry without attempts, and its links. */
/** The anchor's principal, inside the reader's subtree. */
const threadFilter = (filter: ThreadFilter): Clause =>
  and([{ sql: 'a.principal_id = ?', params: [filter.principalId] }, ...(filter.userPath === undefined ? [] : [subtree('a.user_path', filter.userPath)])])

const threadEntry = (row: AuditLogRow): AuditThreadEntry => ({
  entry: fullEntry(row, { attempts: false }),
  position: row.seq,
  responseId: row.response_id ?? null,
  previousResponseId: row.previous_response_id ?? null,
})

export class SqliteAuditStore implements AuditReader, AuditBatchWriter {
  private readonly maxSeqIn
  private readonly maxSeq
  private readonly insertEntry
  private readonly insertPayload
  private readonly insertSearch
  private readonly insertLabels
  private readonly selectFull
  private readonly deleteOld

  constructor(private readonly db: Database) {
    this.maxSeqIn = db.query<{ m: number | null }, [number, number]>('SELECT MAX(seq) AS m FROM audit_log WHERE seq >= ? AND seq < ?')
    this.maxSeq = db.query<{ m: number | null }, []>('SELECT MAX(seq) AS m FROM audit_log')
    this.insertEntry = db.query(`INSERT INTO audit_log (seq, ${AUDIT_ROW_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(AUDIT_ROW_COLUMNS.length)}) ON CONFLICT (id) DO NOTHING`)
    this.insertPayload = db.query('INSERT INTO audit_log_payloads (seq, payload) VALUES (?, ?)')
    this.insertSearch = db.query('INSERT INTO audit_log_search (rowid, text) VALUES (?, ?)')
    // SQLite reads the labels out of the row's data JSON itself: the row format (and spill files) stay as they are.
    this.insertLabels = db.query("INSERT OR IGNORE INTO audit_log_labels (label, seq) SELECT value, ? FROM json_each(?, '$.labels') WHERE type = 'text'")
    this.selectFull = db.query<AuditLogRow, [string]>(`${FULL_SELECT} WHERE a.id = ?`)
    this.deleteOld = db.query('DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE ts < ? LIMIT ?)')
  }

  async writeBatch(rows: readonly AuditRow[]): Promise<number> {
    // IMMEDIATE: the batch reads (nextSeq) before it writes, and a deferred transaction that must upgrade its read
    // lock fails at once with "database is locked" when another connection wrote meanwhile; busy_timeout does
    // not cover that upgrade, but it does cover waiting for the write lock up front.
    return this.db
      .transaction(() => {
        const keys = { max: this.maxSeq.get()?.m ?? -1 }
        let written = 0
        for (const row of rows) if (this.insertOne(row, keys)) written++
        return written
      })
      .immediate()
  }

  private insertOne(row: AuditRow, keys: { max: number }): boolean {
    const seq = this.nextSeq(row[1], keys.max)
    if (this.insertEntry.run(seq, ...auditRowColumns(row)).changes === 0) return false // already stored (a replay)
    if (seq > keys.max) keys.max = seq
    const payload = auditRowPayload(row)
    if (payload !== null) this.insertPayload.run(seq, payload)
    this.insertSearch.run(seq, auditRowSearchText(row))
    const data = auditRowData(row)
    if (data.includes(HAS_LABELS)) this.insertLabels.run(seq, data)
    return true
  }

  /**
   * The first free key of the entry's millisecond (the next millisecond's when 1024 started in this one). An
   * entry newer than every stored key (the usual case) needs no lookup: the transaction holds the write lock and
   * `maxKey` is the table's largest key.
   */
  private nextSeq(ts: number, maxKey: number): number {
    if (ts * SEQ_PER_MS > maxKey) return ts * SEQ_PER_MS
    for (let base = ts * SEQ_PER_MS; ; base += SEQ_PER_MS) {
      const max = this.maxSeqIn.get(base, base + SEQ_PER_MS)?.m
      if (max === null || max === undefined) return base
      if (max + 1 < base + SEQ_PER_MS) return max + 1
    }
  }

  /**
   * Two steps: the page's keys from the indexes alone (sorting keys, not rows), then those rows. Where the keys
   * come from:
   * - a word search alone walks the FTS index newest first within the window (keys follow time) and stops after
   *   the page; a label alone does the same in the labels table (before, each labelled entry of the window was
   *   looked up for its time: 185–320 ms at 1,000,000 entries, now under 1 ms);
   * - otherwise the filters drive (through their indexes, or the wide time index), and each candidate is probed
   *   against the search's matches (`+seq` keeps SQLite from turning that around into one row lookup per match:
   *   a row lookup costs 5–20 µs at 1,000,000 entries, reading a time index entry well under 1 µs).
   */
  async list(q: AuditLogQuery) {
    const { window, filters, match } = conditions(q)
    let keys: Clause & { order: string }
    let count: Clause
    if (match !== undefined && filters.length === 0) {
      const where = and([{ sql: 'audit_log_search MATCH ?', params: [match] }, ...searchRange(q, 'rowid')])
      keys = { sql: `SELECT rowid AS k FROM audit_log_search WHERE ${where.sql}`, params: where.params, order: 'rowid DESC' }
      count = countOf('rowid', `audit_log_search WHERE ${where.sql}`, where.params, q)
    } else if (match === undefined && q.label !== undefined && filters.length === 1) {
      const where = and([{ sql: 'label = ?', params: [q.label] }, ...searchRange(q, 'seq')])
      keys = { sql: `SELECT seq AS k FROM audit_log_labels WHERE ${where.sql}`, params: where.params, order: 'seq DESC' }
      count = countOf('seq', `audit_log_labels WHERE ${where.sql}`, where.params, q)
    } else {
      const all = [...window, ...filters]
      if (match !== undefined) {
        const inner = and([{ sql: 'audit_log_search MATCH ?', params: [match] }, ...searchRange(q, 'rowid')])
        all.push({ sql: `+seq IN (SELECT rowid FROM audit_log_search WHERE ${inner.sql})`, params: inner.params })
      }
      const where = all.length > 0 ? and(all) : { sql: '1', params: [] }
      keys = { sql: `SELECT seq AS k FROM audit_log WHERE ${where.sql}`, params: where.params, order: 'ts DESC, seq DESC' }
      count = countOf('seq', `audit_log WHERE ${where.sql}`, where.params, q)
    }
    // One read transaction: the write thread commits between statements otherwise, and a page could count an
    // entry it does not list.
    const { rows, total } = this.db.transaction(() => {
      const page = this.db
        .query<{ k: number }, Param[]>(`${keys.sql} ORDER BY ${keys.order} LIMIT ? OFFSET ?`)
        .all(...keys.params, q.limit, q.offset)
        .map((r) => r.k)
      const total = this.db.query<{ n: number }, Param[]>(count.sql).get(...count.params)?.n ?? 0
      const rows =
        page.length === 0
          ? []
          : this.db.query<AuditLogRow, Param[]>(`SELECT ${LIGHT_COLUMNS} FROM audit_log WHERE seq IN (${page.map(() => '?').join(', ')}) ORDER BY ts DESC, seq DESC`).all(...page)
      return { rows, total }
    })()
    return { entries: rows.map(listEntry), limit: q.limit, offset: q.offset, ...pageTotal(total, q, rows.length) }
  }

  async get(id: string) {
    const row = this.selectFull.get(id)
    return row ? fullEntry(row) : undefined
  }

  async threadEntry(id: string) {
    const row = this.selectFull.get(id)
    return row ? threadEntry(row) : undefined
  }

  async sessionEntries(sessionId: string, from: AuditThreadEntry, direction: 'before' | 'after', limit: number, filter: ThreadFilter) {
    const ts = Date.parse(from.entry.timestamp)
    const where = direction === 'before' ? '(a.ts < ? OR (a.ts = ? AND a.seq < ?)) ORDER BY a.ts DESC, a.seq DESC' : '(a.ts > ? OR (a.ts = ? AND a.seq > ?)) ORDER BY a.ts, a.seq'
    // The session's entries are found through the search index (audit-log-query.ts: session ids have no B-tree index).
    const candidates = searchCandidates(sessionId, {}, 'a.seq') ?? { sql: '1', params: [] }
    const owner = threadFilter(filter)
    return this.db
      .query<AuditLogRow, Param[]>(`${FULL_SELECT} WHERE a.session_id = ? AND ${candidates.sql} AND ${owner.sql} AND ${where} LIMIT ?`)
      .all(sessionId, ...candidates.params, ...owner.params, ts, ts, from.position, limit)
      .map(threadEntry)
  }

  async byResponseId(responseId: string, filter: ThreadFilter) {
    return this.threadLink('a.response_id = ?', responseId, filter, 'ORDER BY a.ts DESC')
  }

  async byPreviousResponseId(responseId: string, filter: ThreadFilter) {
    return this.threadLink('a.previous_response_id = ?', responseId, filter, 'ORDER BY a.ts')
  }

  private async threadLink(link: string, responseId: string, filter: ThreadFilter, order: string) {
    const owner = threadFilter(filter)
    const row = this.db.query<AuditLogRow, Param[]>(`${FULL_SELECT} WHERE ${link} AND ${owner.sql} ${order} LIMIT 1`).get(responseId, ...owner.params)
    return row ? threadEntry(row) : undefined
  }

  async statsRows(q: AuditStatsQuery): Promise<AuditStatsRow[]> {
    const path = q.userPath === undefined ? { sql: '1', params: [] } : subtree('user_path', q.userPath)
    return this.db
      .query<AuditStatsRow, Param[]>(
        `SELECT (ts - ?) / ? AS bucket, COUNT(*) AS requests,
           SUM(status_code BETWEEN 200 AND 299) AS status_2xx, SUM(status_code BETWEEN 400 AND 499) AS status_4xx, SUM(status_code BETWEEN 500 AND 599) AS status_5xx,
           AVG(duration_ns) AS avg_duration_ns, MAX(duration_ns) AS max_duration_ns
         FROM audit_log WHERE ts >= ? AND ts < ? AND event_type = '' AND ${path.sql} GROUP BY bucket`,
      )
      .all(q.from, q.bucketMs, q.from, q.to, ...path.params)
  }

  async deleteOlderThan(cutoffMs: number, batch: number): Promise<number> {
    return this.deleteOld.run(cutoffMs, batch).changes
  }
}
