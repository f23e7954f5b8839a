/**
 * @module The audit log in PostgreSQL (tables in drizzle/0001_audit_log.sql and 0002: partitioned by week, bodies in a
 * table of their own that only the detail view reads). A batch is one transaction of statements of up to 512 KB
 * each (usually one): the rows travel as one JSON array (the encoded AuditRow tuples) and PostgreSQL unpacks them,
 * inserts the light rows idempotently (a replayed entry, same (id, ts), is skipped), and the payloads and labels
 * of the rows that were new. The array is read as jsonb, parsed once: on `json` every `->>` re-parses the whole
 * row text, which made a batch 3× slower.
 *
 * Every filter of the list has a `(column, ts DESC)` index; the search is a `tsvector` of the searchable text
 * with a GIN index (words in order, the last one a prefix: `rate <-> limit:*`).
 */
import type { SQL } from 'bun'
import type { AuditLogEntry, AuditLogPage, AuditLogQuery, AuditStatsQuery } from '../../audit/entry.ts'
import { AUDIT_ROW_COLUMNS, type AuditRow, auditRowBytes, auditRowSearchText } from '../../audit/record.ts'
import { type AuditQueryDialect, auditConditions, type Clause, type Param } from '../audit-query/conditions.ts'
import { type AuditLogRow, fullEntry, listEntry } from '../audit-query/rows.ts'
import { countLimit, pageTotal } from '../audit-query/total.ts'
import { dropPartitionsBefore } from './partitions.ts'

/** How a tuple element becomes a column value (the JSON element is text; these cast it). */
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

/**
 * Runs of ASCII spaces and punctuation, replaced by a space before the text is split into words: PostgreSQL's
 * parser would otherwise keep `deepseek/deepseek-reasoner` or `/v1/models` as one "file" word, which no search for
 * "deepseek-reas" or "v1 models" finds (planSearch splits on every non-letter, as SQLite's tokenizer does).
 * Replaced here, before the batch is sent: PostgreSQL's regexp_replace cost ~8 µs of server CPU per row.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII control characters separate words too
const ASCII_PUNCTUATION = /[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/g
const SEARCH_TEXT = COLUMN_COUNT + 1

/**
 * Most row bytes (auditRowBytes: texts and a per-row allowance) per statement. A batch larger than this is sent as several statements in one transaction:
 * PostgreSQL's CPU per row rose by a quarter past about 1 MB a statement (entries of 2.6 KB: 49 µs a row in
 * statements of 800 or 1,000 rows, 39-40 µs in statements of 125-500 rows; the writer's batches are up to 1,000).
 */
const STATEMENT_BYTES = 512 * 1024

/** The batch as statement parameters: JSON arrays of rows, each row's search text split into words already. */
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
    copy[SEARCH_TEXT] = auditRowSearchText(row).replace(ASCII_PUNCTUATION, ' ')
    chunk.push(copy)
    bytes += size
  }
  statements.push(JSON.stringify(chunk))
  return statements
}

/** The light data JSON has labels only when this occurs in it (an empty list is `"labels":[]`): rows without it skip parsing their data twice. */
const HAS_LABELS = '"labels":["'

/**
 * The batch statement. `skipStored` adds the ON CONFLICT clauses that skip entries already stored; a batch is first
 * sent without them, since an arbiter check per row cost ~5 µs of server CPU and nearly every batch is all new (the
 * primary key refuses a stored one anyway: that batch is then sent again with them).
 */
const writeBatchStatement = (skipStored: boolean) => {
  const orSkip = skipStored ? 'ON CONFLICT DO NOTHING' : ''
  return `WITH src AS (SELECT value AS r FROM jsonb_array_elements($1::text::jsonb)),
  ins AS (
    INSERT INTO audit_log (${AUDIT_ROW_COLUMNS.join(', ')}, search)
    SELECT ${INSERT_COLUMNS}, to_tsvector('simple', r->>${SEARCH_TEXT}) FROM src
    ${skipStored ? 'ON CONFLICT (id, ts) DO NOTHING' : ''} RETURNING id, ts, data),
  pay AS (
    INSERT INTO audit_log_payloads (id, ts, payload)
    SELECT ins.id, ins.ts, s.r->>${COLUMN_COUNT} FROM src s JOIN ins ON ins.id = s.r->>0 AND ins.ts = (s.r->>1)::bigint
    WHERE s.r->>${COLUMN_COUNT} IS NOT NULL ${orSkip}),
  lab AS (
    INSERT INTO audit_log_labels (label, ts, id)
    SELECT DISTINCT l, ins.ts, ins.id FROM ins, json_array_elements_text(CASE WHEN json_typeof(ins.data::json->'labels') = 'array' THEN ins.data::json->'labels' END) l
    WHERE strpos(ins.data, '${HAS_LABELS}') > 0 ${orSkip})
  SELECT count(*)::int AS n FROM ins`
}
const INSERT_NEW = writeBatchStatement(false)
const INSERT_OR_SKIP = writeBatchStatement(true)
/** SQLSTATE unique_violation. */
const UNIQUE_VIOLATION = '23505'

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

/** The label's rows of audit_log_labels (alias `l`) within the query's window. */
const labelRows = (label: string, q: AuditLogQuery): Clause => ({
  sql: `l.label = ?${q.from !== undefined ? ' AND l.ts >= ?' : ''}${q.to !== undefined ? ' AND l.ts < ?' : ''}`,
  params: [label, ...[q.from, q.to].filter((v): v is number => v !== undefined)],
})
const where = (parts: (string | undefined)[]) => parts.filter((p) => p !== undefined).join(' AND ') || 'true'

/**
 * The list's one statement: the page and the total, so both read one snapshot (as two queries, even on two
 * connections at once, an entry committed between them was counted but not listed). Always one row back, the
 * page's columns null when the page is empty. Exported for bench/audit-queries.ts --explain.
 *
 * The page reads 25 rows down a `(column, ts)` index in any case; the total is what costs, so it stops at
 * `countLimit` matches (../audit-query/total.ts; each half of the provider's count at as many) and is shaped for
 * index-only counting:
 * - a label alone is counted in audit_log_labels' primary key (label, ts, id), one row per labelled entry;
 * - the provider filter (type or name) is counted as two disjoint halves, `provider = x` on (provider, ts) and
 *   `provider_name = x AND provider <> x` on (provider_name, ts) INCLUDE (provider): an OR of the two columns
 *   made PostgreSQL read the rows.
 */
export function listStatement(q: AuditLogQuery): { text: string; params: Param[] } {
  const p = new Params()
  const { window, filters, words } = auditConditions({ ...q, provider: undefined, label: undefined }, postgresDialect)
  const common = [...window, ...filters].map((c) => p.bind(c))
  if (words !== undefined) common.push(p.bind({ sql: `a.search @@ to_tsquery('simple', ?)`, params: [`${words.join(' <-> ')}:*`] }))
  const label = q.label !== undefined ? p.bind(postgresDialect.label(q.label, q)) : undefined
  const provider =
    q.provider !== undefined
      ? [p.bind({ sql: 'a.provider = ?', params: [q.provider] }), p.bind({ sql: 'a.provider_name = ? AND a.provider <> ?', params: [q.provider, q.provider] })]
      : undefined
  const page = where([...common, provider && `(${provider[0]} OR (${provider[1]}))`, label])
  const upTo = countLimit(q)
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

export class PostgresAuditStore {
  constructor(private readonly sql: SQL) {}

  /** Stores the rows in one transaction; ids already stored are skipped. Resolves to how many were new. */
  async writeBatch(rows: readonly AuditRow[]): Promise<number> {
    if (rows.length === 0) return 0
    const parameters = statementParameters(rows)
    const insert = async (sql: SQL, statement: string) => {
      let stored = 0
      for (const batch of parameters) stored += Number((await sql.unsafe(statement, [batch]))[0]?.n ?? 0)
      return stored
    }
    const run = (statement: string) => (parameters.length === 1 ? insert(this.sql, statement) : this.sql.begin((tx) => insert(tx, statement)))
    try {
      return await run(INSERT_NEW)
    } catch (err) {
      if ((err as { errno?: unknown }).errno !== UNIQUE_VIOLATION) throw err
      return await run(INSERT_OR_SKIP)
    }
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

  async sessionEntries(sessionId: string, from: AuditThreadEntryRow, direction: 'before' | 'after', limit: number): Promise<AuditThreadEntryRow[]> {
    const ts = Date.parse(from.entry.timestamp)
    const where =
      direction === 'before' ? '(a.ts < $2 OR (a.ts = $2 AND a.seq < $3)) ORDER BY a.ts DESC, a.seq DESC' : '(a.ts > $2 OR (a.ts = $2 AND a.seq > $3)) ORDER BY a.ts, a.seq'
    const rows = await this.sql.unsafe(`${FULL} WHERE a.session_id = $1 AND ${where} LIMIT $4`, [sessionId, ts, from.position, limit])
    return (rows as AuditLogRow[]).map(threadEntry)
  }

  async byResponseId(responseId: string): Promise<AuditThreadEntryRow | undefined> {
    const row = await this.fullRow('a.response_id = $1', [responseId], 'ORDER BY a.ts DESC')
    return row ? threadEntry(row) : undefined
  }

  async byPreviousResponseId(responseId: string): Promise<AuditThreadEntryRow | undefined> {
    const row = await this.fullRow('a.previous_response_id = $1', [responseId], 'ORDER BY a.ts')
    return row ? threadEntry(row) : undefined
  }

  async statsRows(q: AuditStatsQuery) {
    return (await this.sql.unsafe(
      `SELECT ((ts - $1) / $2)::float8 AS bucket, count(*)::float8 AS requests,
         count(*) FILTER (WHERE status_code BETWEEN 200 AND 299)::float8 AS status_2xx,
         count(*) FILTER (WHERE status_code BETWEEN 400 AND 499)::float8 AS status_4xx,
         count(*) FILTER (WHERE status_code BETWEEN 500 AND 599)::float8 AS status_5xx,
         avg(duration_ns)::float8 AS avg_duration_ns, max(duration_ns)::float8 AS max_duration_ns
       FROM audit_log WHERE ts >= $1 AND ts < $3 AND event_type = '' GROUP BY 1`,
      [q.from, q.bucketMs, q.to],
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
