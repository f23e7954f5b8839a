/**
 * @module The audit log in PostgreSQL (tables in drizzle/0001_audit_log.sql, 0002, 0003: partitioned by week, bodies
 * in a table of their own that only the detail view reads). A batch is one transaction of up to three COPYs (the
 * light rows, their payloads, their labels); a batch holding an entry already stored is sent again as a statement
 * that skips the stored ones.
 *
 * Every filter of the list has a `(column, ts DESC)` index, most of them partial (0003: the rows their filter can
 * match through them); the search is a `tsvector` of the searchable text (search-vector.ts) with a GIN index (words
 * in order, the last one a prefix: `'rate' <-> 'limit':*`).
 */
import type { SQL } from 'bun'
import type { AuditLogEntry, AuditLogPage, AuditLogQuery, AuditStatsQuery } from '../../audit/entry.ts'
import { AUDIT_ROW_COLUMNS, type AuditRow, auditRowBytes, auditRowId, auditRowSearchText } from '../../audit/record.ts'
import { type AuditQueryDialect, auditConditions, type Clause, type Param } from '../audit-query/conditions.ts'
import { type AuditLogRow, fullEntry, listEntry } from '../audit-query/rows.ts'
import { countLimit, pageTotal } from '../audit-query/total.ts'
import { copyIn, copyValue, isUniqueViolation } from './copy.ts'
import { dropPartitionsBefore } from './partitions.ts'
import { searchQuery, searchVector } from './search-vector.ts'
import type { ThreadFilter } from '../types.ts'

/** How a tuple element becomes a column value in the replay statement (the JSON element is text; these cast it). */
const CASTS: Partial<Record<(typeof AUDIT_ROW_COLUMNS)[number], string>> = {
  ts: '::bigint',
  duration_ns: '::bigint',
  status_code: '::int',
  stream: '::int = 1',
  alias_used: '::int = 1',
  conversation_payload: '::int = 1',
}
const COLUMN_COUNT = AUDIT_ROW_COLUMNS.length
const INSERT_COLUMNS = AUDIT_ROW_COLUMNS.map((c, i) => `(r->>${i})${CASTS[c] ?? ''}`).join(', ')
const DATA = AUDIT_ROW_COLUMNS.indexOf('data')
/** The tuple element that carries the search vector in the replay statement's rows (the row's search text before). */
const SEARCH = COLUMN_COUNT + 1

/** The light data JSON has labels only when this occurs in it (an empty list is `"labels":[]`): rows without it skip parsing their data. */
const HAS_LABELS = '"labels":["'
function rowLabels(row: AuditRow): string[] {
  const data = row[DATA] as string
  if (!data.includes(HAS_LABELS)) return []
  const labels: unknown = JSON.parse(data).labels
  return Array.isArray(labels) ? [...new Set(labels.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))))] : []
}

/** A batch as the text of three COPYs: the light rows (flags as 0/1, which COPY reads as booleans), payloads and labels. */
function copyText(rows: readonly AuditRow[]): { entries: string; payloads: string; labels: string } {
  let entries = ''
  let payloads = ''
  let labels = ''
  for (const row of rows) {
    for (let i = 0; i < COLUMN_COUNT; i++) entries += `${copyValue(row[i])}\t`
    // A vector literal holds no tab, newline or backslash.
    entries += `${searchVector(auditRowSearchText(row))}\n`
    const id = copyValue(auditRowId(row))
    const payload = row[COLUMN_COUNT] as string | null
    if (payload !== null) payloads += `${id}\t${row[1]}\t${copyValue(payload)}\n`
    for (const label of rowLabels(row)) labels += `${copyValue(label)}\t${row[1]}\t${id}\n`
  }
  return { entries, payloads, labels }
}
const COPY_ENTRIES = `COPY audit_log (${AUDIT_ROW_COLUMNS.join(', ')}, search) FROM STDIN`
const COPY_PAYLOADS = 'COPY audit_log_payloads (id, ts, payload) FROM STDIN'
const COPY_LABELS = 'COPY audit_log_labels (label, ts, id) FROM STDIN'

/**
 * Most row bytes (auditRowBytes: texts and a per-row allowance) per replay statement. A batch larger than this is
 * sent as several statements in one transaction: PostgreSQL's CPU per row rose by a quarter past about 1 MB a
 * statement (entries of 2.6 KB: 49 µs a row in statements of 800 or 1,000 rows, 39-40 µs in statements of 125-500).
 */
const STATEMENT_BYTES = 512 * 1024

/** The batch as replay statement parameters: JSON arrays of rows, each row's search text replaced by its vector. */
function statementParameters(rows: readonly AuditRow[]): string[] {
  const statements: string[] = []
  let chunk: unknown[][] = []
  let bytes = 0
  for (const row of rows) {
    const size = auditRowBytes(row)
    if (bytes + size > STATEMENT_BYTES && chunk.length > 0) {
      statements.push(JSON.stringify(chunk))
      chunk = []
      bytes = 0
    }
    const copy: unknown[] = row.slice()
    copy[SEARCH] = searchVector(auditRowSearchText(row))
    chunk.push(copy)
    bytes += size
  }
  statements.push(JSON.stringify(chunk))
  return statements
}

/**
 * The replay statement: the rows as one JSON array that PostgreSQL unpacks (read as jsonb, parsed once: on `json`
 * every `->>` re-parsed the row text), the entries already stored skipped (ON CONFLICT), the payloads and labels
 * of the new ones inserted.
 */
const INSERT_OR_SKIP = `WITH src AS (SELECT value AS r FROM jsonb_array_elements($1::text::jsonb)),
  ins AS (
    INSERT INTO audit_log (${AUDIT_ROW_COLUMNS.join(', ')}, search)
    SELECT ${INSERT_COLUMNS}, (r->>${SEARCH})::tsvector FROM src
    ON CONFLICT (id, ts) DO NOTHING RETURNING id, ts, data),
  pay AS (
    INSERT INTO audit_log_payloads (id, ts, payload)
    SELECT ins.id, ins.ts, s.r->>${COLUMN_COUNT} FROM src s JOIN ins ON ins.id = s.r->>0 AND ins.ts = (s.r->>1)::bigint
    WHERE s.r->>${COLUMN_COUNT} IS NOT NULL ON CONFLICT DO NOTHING),
  lab AS (
    INSERT INTO audit_log_labels (label, ts, id)
    SELECT DISTINCT l, ins.ts, ins.id FROM ins, json_array_elements_text(CASE WHEN json_typeof(ins.data::json->'labels') = 'array' THEN ins.data::json->'labels' END) l
    WHERE strpos(ins.data, '${HAS_LABELS}') > 0 ON CONFLICT DO NOTHING)
  SELECT count(*)::int AS n FROM ins`

/** The columns as the shared row mapping (../audit-query/rows.ts) reads them (flags as 0/1, as SQLite keeps them). */
const LIGHT = `a.seq::float8 AS seq, a.id, a.ts::float8 AS ts, a.duration_ns::float8 AS duration_ns, a.request_id, a.requested_model, a.resolved_model, a.provider,
  a.provider_name, a.method, a.path, a.status_code, a.stream::int AS stream, a.error_type, a.session_id, a.user_path, a.principal_id, a.auth_key_id,
  a.auth_method, a.client_ip, a.cache_type, a.alias_used::int AS alias_used, a.workflow_version_id, a.conversation_payload::int AS conversation_payload,
  a.data, a.usage, a.response_id, a.previous_response_id`
const FULL = `SELECT ${LIGHT}, p.payload FROM audit_log a LEFT JOIN audit_log_payloads p ON p.id = a.id AND p.ts = a.ts`

export interface AuditThreadEntryRow {
  entry: AuditLogEntry
  position: number
  responseId: string | null
  previousResponseId: string | null
}

const threadEntry = (row: AuditLogRow): AuditThreadEntryRow => ({
  entry: fullEntry(row, { attempts: false }),
  position: row.seq,
  responseId: row.response_id ?? null,
  previousResponseId: row.previous_response_id ?? null,
})

const DAY_MS = 86_400_000
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i
/** The creation time a UUIDv7 carries (its first 48 bits, epoch ms); undefined for other ids. */
const uuidV7Time = (id: string): number | undefined => (UUID_V7.test(id) ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined)

/** One statement's parameters: each bound clause's `?` become the next `$n`. */
class Params {
  readonly values: Param[] = []
  bind(c: Clause): string {
    let i = 0
    const text = c.sql.replace(/\?/g, () => {
      this.values.push(c.params[i++]!)
      return `$${this.values.length}`
    })
    return text
  }
}

const postgresDialect: AuditQueryDialect = {
  column: (name) => `a.${name}`,
  flag: (value) => value,
  label(label, q) {
    const rows = labelRows(label, q)
    return { sql: `(a.id, a.ts) IN (SELECT l.id, l.ts FROM audit_log_labels l WHERE ${rows.sql})`, params: rows.params }
  },
  // One index range ['/a', '/a0') holding the subtree, the exact test applied to the index entries ('/a-b' lies in
  // the range, not in the subtree): with `= '/a' OR in ['/a/', '/a0')` PostgreSQL counted through the whole index.
  subtree: (column, path) => ({ sql: `${column} >= ? AND ${column} < ? AND (${column} = ? OR ${column} >= ?)`, params: [path, `${path}0`, path, `${path}/`] }),
}

/** The anchor's principal, inside the reader's subtree. */
const threadFilter = (filter: ThreadFilter): Clause => {
  const path = filter.userPath === undefined ? undefined : postgresDialect.subtree!('a.user_path', filter.userPath)
  return { sql: `a.principal_id = ?${path ? ` AND ${path.sql}` : ''}`, params: [filter.principalId, ...(path?.params ?? [])] }
}

/** The label's rows of audit_log_labels (alias `l`) within the query's window. */
const labelRows = (label: string, q: AuditLogQuery): Clause => ({
  sql: `l.label = ?${q.from !== undefined ? ' AND l.ts >= ?' : ''}${q.to !== undefined ? ' AND l.ts < ?' : ''}`,
  params: [label, ...[q.from, q.to].filter((v): v is number => v !== undefined)],
})
const where = (parts: (string | undefined)[]) => parts.filter((p) => p !== undefined).join(' AND ') || 'true'

/**
 * Literal restatements of filter values that the partial indexes of migration 0003 are defined by: a bound `$n`
 * proves nothing about the value to a generic plan, a literal does. Each is implied by its filter (the query parser
 * drops empty values), so none changes a result.
 */
function partialIndexGuards(q: AuditLogQuery): string[] {
  const guards: string[] = []
  if (q.errorType !== undefined) guards.push(`a.error_type <> ''`)
  if (q.statusCode !== undefined && q.statusCode !== 200) guards.push('a.status_code <> 200')
  if (q.stream === true) guards.push('a.stream')
  if (q.sessionId !== undefined) guards.push(`a.session_id <> ''`)
  if (q.method !== undefined && q.method !== 'POST') guards.push(`a.method <> 'POST'`)
  if (q.userPath !== undefined && q.userPath !== '/') guards.push(`a.user_path <> '/'`)
  return guards
}

/**
 * The list's one statement: the page and the total, so both read one snapshot (as two queries, even on two
 * connections at once, an entry committed between them was counted but not listed). Always one row back, the
 * page's columns null when the page is empty. Exported for bench/audit-queries.ts --explain.
 *
 * The page reads 25 rows down a `(column, ts)` index in any case; the total is what costs, so it stops at
 * `countLimit` matches (../audit-query/total.ts; each half of the provider's count at as many) and is shaped for
 * index-only counting:
 * - a label alone is counted in audit_log_labels' primary key (label, ts, id), one row per labelled entry;
 * - the provider filter (type or name) is counted as two disjoint halves, `provider_name = x` on
 *   (provider_name, ts) and `provider = x AND provider <> provider_name` on the partial (provider, ts) index that
 *   holds only those rows: an OR of the two columns made PostgreSQL read the rows.
 */
export function listStatement(q: AuditLogQuery): { text: string; params: Param[] } {
  const p = new Params()
  const { window, filters, words } = auditConditions({ ...q, provider: undefined, label: undefined }, postgresDialect)
  const conditions = [...window, ...filters].map((c) => p.bind(c)).concat(partialIndexGuards(q))
  const query = words === undefined ? undefined : searchQuery(words)
  const tsquery = query === undefined ? undefined : p.bind({ sql: '?::tsquery', params: [query] })
  const common = words === undefined ? conditions : [...conditions, tsquery === undefined ? 'false' : `a.search @@ ${tsquery}`]
  const label = q.label !== undefined ? p.bind(postgresDialect.label(q.label, q)) : undefined
  const provider =
    q.provider !== undefined
      ? [p.bind({ sql: 'a.provider_name = ?', params: [q.provider] }), p.bind({ sql: 'a.provider = ? AND a.provider <> a.provider_name', params: [q.provider] })]
      : undefined
  const providerEither = provider && `(${provider[0]} OR (${provider[1]}))`
  const page = where([...common, providerEither, label])
  const upTo = countLimit(q)
  if (words !== undefined && upTo !== undefined) {
    // The same conditions with the words tested on each row (ts_match_vq is `@@` without its index): searchStatement.
    const inTimeOrder = tsquery === undefined ? page : where([...conditions, `ts_match_vq(a.search, ${tsquery})`, providerEither, label])
    return searchStatement(p, page, inTimeOrder, upTo, q)
  }
  const limit = upTo === undefined ? '' : ` LIMIT ${p.bind({ sql: '?', params: [upTo] })}`
  const count = (w: string, table = 'audit_log a') => `(SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${w}${limit}) m)`
  let total: string
  if (q.label !== undefined && provider === undefined && filters.length === 0 && words === undefined) {
    total = count(p.bind(labelRows(q.label, q)), 'audit_log_labels l')
  } else if (provider !== undefined) {
    total = `${count(where([...common, provider[0], label]))} + ${count(where([...common, provider[1], label]))}`
  } else {
    total = count(page)
  }
  const n = p.values.length
  return {
    text: `WITH page AS (SELECT ${LIGHT} FROM audit_log a WHERE ${page} ORDER BY a.ts DESC, a.seq DESC LIMIT $${n + 1} OFFSET $${n + 2}),
        counted AS (SELECT (${total})::int AS total)
       SELECT page.*, counted.total FROM counted LEFT JOIN page ON true ORDER BY page.ts DESC, page.seq DESC`,
    params: [...p.values, q.limit, q.offset],
  }
}

/**
 * A word search's statement. Its matches come from the search index as a bitmap, its total counts them, and
 * PostgreSQL cannot tell a word in a third of all entries from a request id in one: planned as a list in time
 * order that keeps the rows the words match, a search matching one entry read every row of the window (44 s at
 * 1,000,000 entries; docs/audit.md). So the matches, up to the cap, are collected once from the index (with their
 * time and order): under the cap they are all there, and the page is their newest (read by primary key, the
 * conditions repeated so the window prunes the partitions); at the cap (many matches, found soon in time order)
 * the page is read in time order (`inTimeOrder`: the words tested on each row, not looked up in the index). Each
 * branch is gated on the count, so only one runs.
 *
 * The at-cap branch must not reach the search index: PostgreSQL estimates a phrase's matches as if its words were
 * independent (`deepseek-reas`: 386 a partition estimated, 9,600 found), so from an offset of 25 on it chose to
 * read every match of the window and sort them (40,581 rows, 32,000 pages, 150 ms at 1,000,000 entries) over
 * reading down the time index until the page is full (0.5 ms). `ts_match_vq` is the function behind `@@` and has
 * no index support, so the time index is the only way left.
 */
function searchStatement(p: Params, page: string, inTimeOrder: string, upTo: number, q: AuditLogQuery): { text: string; params: Param[] } {
  const cap = p.bind({ sql: '?', params: [upTo] })
  const n = p.values.length
  const [limit, offset] = [`$${n + 1}`, `$${n + 2}`]
  return {
    text: `WITH m AS MATERIALIZED (SELECT a.id, a.ts, a.seq FROM audit_log a WHERE ${page} LIMIT ${cap}),
        counted AS (SELECT count(*)::int AS total FROM m),
        page AS (
          (SELECT ${LIGHT} FROM (SELECT id, ts, seq FROM m ORDER BY ts DESC, seq DESC LIMIT ${limit} OFFSET ${offset}) x
            JOIN audit_log a ON a.id = x.id AND a.ts = x.ts WHERE ${page} AND (SELECT total FROM counted) < ${cap})
          UNION ALL
          (SELECT ${LIGHT} FROM audit_log a WHERE ${inTimeOrder} AND (SELECT total FROM counted) >= ${cap} ORDER BY a.ts DESC, a.seq DESC LIMIT ${limit} OFFSET ${offset}))
       SELECT page.*, counted.total FROM counted LEFT JOIN page ON true ORDER BY page.ts DESC, page.seq DESC`,
    params: [...p.values, q.limit, q.offset],
  }
}

export class PostgresAuditStore {
  constructor(private readonly sql: SQL) {}

  /**
   * Stores the rows in one transaction; ids already stored are skipped. Resolves to how many were new. The rows go
   * as COPY (no statement to parse, no JSON to unpack: about 15 µs less server CPU per entry than the JSON statement,
   * docs/scale-out.md); a batch holding an entry already stored (a replay after a lost acknowledgement) fails on
   * the primary key as a whole and is sent again as statements that skip the stored ones.
   */
  async writeBatch(rows: readonly AuditRow[]): Promise<number> {
    if (rows.length === 0) return 0
    const text = copyText(rows)
    try {
      await this.sql.begin(async (tx) => {
        await copyIn(tx, COPY_ENTRIES, text.entries)
        if (text.payloads) await copyIn(tx, COPY_PAYLOADS, text.payloads)
        if (text.labels) await copyIn(tx, COPY_LABELS, text.labels)
      })
      return rows.length
    } catch (err) {
      if (!isUniqueViolation(err)) throw err
      return await this.insertOrSkip(rows)
    }
  }

  private async insertOrSkip(rows: readonly AuditRow[]): Promise<number> {
    const parameters = statementParameters(rows)
    const insert = async (sql: SQL) => {
      let stored = 0
      for (const batch of parameters) stored += Number((await sql.unsafe(INSERT_OR_SKIP, [batch]))[0]?.n ?? 0)
      return stored
    }
    return parameters.length === 1 ? insert(this.sql) : this.sql.begin((tx) => insert(tx))
  }

  /** A page and the total of its filter, read from one snapshot (listStatement). */
  async list(q: AuditLogQuery): Promise<AuditLogPage> {
    const { text, params } = listStatement(q)
    const rows = (await this.sql.unsafe(text, params)) as (AuditLogRow & { total: number })[]
    const entries = rows.filter((r) => r.id !== null).map(listEntry)
    return { entries, limit: q.limit, offset: q.offset, ...pageTotal(Number(rows[0]?.total ?? 0), q, entries.length) }
  }

  private async fullRow(where: string, params: Param[], order = ''): Promise<AuditLogRow | undefined> {
    const [row] = await this.sql.unsafe(`${FULL} WHERE ${where} ${order} LIMIT 1`, params)
    return row as AuditLogRow | undefined
  }

  /**
   * An entry by id. The gateway's ids are UUIDv7 made at the entry's start, so the id names its day: looked up in
   * the partitions of that day ± one first (planning and probing one or two partitions instead of all of them),
   * and in all of them only when that misses (an id of another kind, or a clock far off).
   */
  private async rowById(id: string): Promise<AuditLogRow | undefined> {
    const at = uuidV7Time(id)
    if (at !== undefined) {
      const [near] = await this.sql.unsafe(
        `SELECT ${LIGHT}, p.payload FROM audit_log a
         LEFT JOIN audit_log_payloads p ON p.id = a.id AND p.ts = a.ts AND p.ts >= $2 AND p.ts < $3
         WHERE a.id = $1 AND a.ts >= $2 AND a.ts < $3 LIMIT 1`,
        [id, at - DAY_MS, at + DAY_MS],
      )
      if (near) return near as AuditLogRow
    }
    return this.fullRow('a.id = $1', [id])
  }

  async get(id: string): Promise<AuditLogEntry | undefined> {
    const row = await this.rowById(id)
    return row ? fullEntry(row) : undefined
  }

  async threadEntry(id: string): Promise<AuditThreadEntryRow | undefined> {
    const row = await this.rowById(id)
    return row ? threadEntry(row) : undefined
  }

  async sessionEntries(sessionId: string, from: AuditThreadEntryRow, direction: 'before' | 'after', limit: number, filter: ThreadFilter): Promise<AuditThreadEntryRow[]> {
    const ts = Date.parse(from.entry.timestamp)
    const params = new Params()
    const session = params.bind({ sql: 'a.session_id = ?', params: [sessionId] })
    const cmp = direction === 'before' ? '<' : '>'
    const beyond = params.bind({ sql: `(a.ts ${cmp} ? OR (a.ts = ? AND a.seq ${cmp} ?))`, params: [ts, ts, from.position] })
    const owner = params.bind(threadFilter(filter))
    const order = direction === 'before' ? 'ORDER BY a.ts DESC, a.seq DESC' : 'ORDER BY a.ts, a.seq'
    // `<> ''`: the session index holds entries with a session only (migration 0003).
    const rows = await this.sql.unsafe(
      `${FULL} WHERE ${session} AND a.session_id <> '' AND ${beyond} AND ${owner} ${order} LIMIT ${params.bind({ sql: '?', params: [limit] })}`,
      params.values,
    )
    return (rows as AuditLogRow[]).map(threadEntry)
  }

  async byResponseId(responseId: string, filter: ThreadFilter): Promise<AuditThreadEntryRow | undefined> {
    return this.threadLink('a.response_id = ?', responseId, filter, 'ORDER BY a.ts DESC')
  }

  async byPreviousResponseId(responseId: string, filter: ThreadFilter): Promise<AuditThreadEntryRow | undefined> {
    return this.threadLink('a.previous_response_id = ?', responseId, filter, 'ORDER BY a.ts')
  }

  private async threadLink(link: string, responseId: string, filter: ThreadFilter, order: string): Promise<AuditThreadEntryRow | undefined> {
    const params = new Params()
    const where = `${params.bind({ sql: link, params: [responseId] })} AND ${params.bind(threadFilter(filter))}`
    const row = await this.fullRow(where, params.values, order)
    return row ? threadEntry(row) : undefined
  }

  async statsRows(q: AuditStatsQuery) {
    return (await this.sql.unsafe(
      `SELECT ((ts - $1) / $2)::float8 AS bucket, count(*)::float8 AS requests,
         count(*) FILTER (WHERE status_code BETWEEN 200 AND 299)::float8 AS status_2xx,
         count(*) FILTER (WHERE status_code BETWEEN 400 AND 499)::float8 AS status_4xx,
         count(*) FILTER (WHERE status_code BETWEEN 500 AND 599)::float8 AS status_5xx,
         avg(duration_ns)::float8 AS avg_duration_ns, max(duration_ns)::float8 AS max_duration_ns
       FROM audit_log WHERE ts >= $1 AND ts < $3 AND event_type = ''${q.userPath === undefined ? '' : ' AND user_path >= $4 AND user_path < $5 AND (user_path = $4 OR user_path >= $6)'} GROUP BY 1`,
      q.userPath === undefined ? [q.from, q.bucketMs, q.to] : [q.from, q.bucketMs, q.to, q.userPath, `${q.userPath}0`, `${q.userPath}/`],
    )) as { bucket: number; requests: number; status_2xx: number; status_4xx: number; status_5xx: number; avg_duration_ns: number; max_duration_ns: number }[]
  }

  /**
   * Drops the partitions that end before the cutoff (whole, no row deletes), then deletes up to `batch` of the
   * remaining older entries row by row (in the partition the cutoff falls in, and the DEFAULT partition).
   */
  async deleteOlderThan(cutoffMs: number, batch: number): Promise<number> {
    const dropped = await dropPartitionsBefore(this.sql, cutoffMs)
    const rows = await this.sql.unsafe(
      `WITH gone AS (
         DELETE FROM audit_log WHERE (id, ts) IN (SELECT id, ts FROM audit_log WHERE ts < $1 LIMIT $2) RETURNING id, ts),
       p AS (DELETE FROM audit_log_payloads x USING gone WHERE x.id = gone.id AND x.ts = gone.ts),
       l AS (DELETE FROM audit_log_labels x USING gone WHERE x.id = gone.id AND x.ts = gone.ts)
       SELECT count(*)::int AS n FROM gone`,
      [cutoffMs, batch],
    )
    return dropped + Number(rows[0]?.n ?? 0)
  }
}
