/**
 * @module Usage records and price overrides in PostgreSQL, and the sums the admin API reports over a time range.
 * Sums are cast to float8 so the driver hands back numbers, not strings.
 */
import type { SQL } from 'bun'
import { eq, getTableColumns } from 'drizzle-orm'
import type { ModelPrice } from '../../usage/pricing.ts'
import type { UsageRecord } from '../../usage/record.ts'
import type { UsageBreakdownRow, UsageQuery, UsageTotals } from '../types.ts'
import { likeLiteral } from '../user-path-filter.ts'
import type { PgDb } from './client.ts'
import { copyIn, copyValue, isUniqueViolation, textArray } from './copy.ts'
import { priceOverrides, usageRecords } from './schema.ts'
import { unitSums } from '../../usage/units.ts'

const SUMS = `COUNT(*)::float8 AS requests, COALESCE(SUM(prompt_tokens),0)::float8 AS input_tokens, COALESCE(SUM(completion_tokens),0)::float8 AS output_tokens,
  COALESCE(SUM(total_tokens),0)::float8 AS total_tokens, COALESCE(SUM(cached_tokens),0)::float8 AS cached_input_tokens,
  COALESCE(SUM(cache_write_tokens),0)::float8 AS cache_write_input_tokens, COALESCE(SUM(reasoning_tokens),0)::float8 AS reasoning_tokens,
  COALESCE(SUM(cost_usd),0)::float8 AS cost_usd, COALESCE(SUM(saved_usd),0)::float8 AS saved_usd, COALESCE(SUM(rewrite_tokens_saved),0)::float8 AS rewrite_tokens_saved,
  COALESCE(SUM(rewrite_cost_saved),0)::float8 AS rewrite_cost_saved, COUNT(*) FILTER (WHERE estimated)::float8 AS estimated_requests, COUNT(*) FILTER (WHERE cache_hit)::float8 AS cache_hits,
  ${Object.values(unitSums((unit, name) => `COALESCE(SUM(units) FILTER (WHERE unit = '${unit}'),0)::float8 AS ${name}`)).join(', ')}`

/**
 * A batch is one COPY (./copy.ts: about 4 µs of server CPU per record, against 10 µs for the statement below,
 * bench/postgres-write-cost.ts's figures in docs/scale-out.md). A batch holding a record already stored (a replay)
 * is sent again as the statement, which skips it: one JSON parameter that PostgreSQL unpacks with the table's own
 * column types (the record fields are named as the columns). That JSON costs the gateway's thread 2 µs a record,
 * drizzle's multi-row VALUES cost it about 40 in building and binding 22 parameters a row. A record leaves out what it
 * has none of (labels, work in units: optional in UsageRecord), stored as the column's default.
 */
const USAGE_COLUMNS = Object.entries(getTableColumns(usageRecords))
/** The columns a record may leave out, with what is stored then (as SQL, and as a COPY field). */
const OPTIONAL: Record<string, { sql: string; copy: string | number }> = {
  labels: { sql: `'{}'`, copy: '{}' },
  unit: { sql: `''`, copy: '' },
  units: { sql: '0', copy: 0 },
  unit_variant: { sql: `''`, copy: '' },
}
const COPY_BATCH = `COPY usage_records (${USAGE_COLUMNS.map(([, c]) => c.name).join(', ')}) FROM STDIN`
const INSERT_OR_SKIP = `INSERT INTO usage_records (${USAGE_COLUMNS.map(([, c]) => c.name).join(', ')})
  SELECT ${USAGE_COLUMNS.map(([field]) => (field in OPTIONAL ? `COALESCE(${field}, ${OPTIONAL[field]!.sql})` : field)).join(', ')}
  FROM json_to_recordset($1::text::json) AS r(${USAGE_COLUMNS.map(([field, c]) => `${field} ${c.getSQLType()}`).join(', ')})
  ON CONFLICT (id) DO NOTHING`

function copyText(records: readonly UsageRecord[]): string {
  let text = ''
  for (const record of records) {
    const fields = record as unknown as Record<string, string | number | boolean | undefined>
    let line = ''
    for (const [field] of USAGE_COLUMNS) line += `${line ? '\t' : ''}${copyValue(field === 'labels' ? textArray(record.labels) : (fields[field] ?? OPTIONAL[field]?.copy))}`
    text += `${line}\n`
  }
  return text
}

/** `label` unnests the labels array: '' for requests without labels. */
const GROUP_COLUMNS = { model: 'model', provider: 'provider_name', key: 'key_id', user_path: 'user_path', label: "COALESCE(l.label, '')" } as const
type Group = keyof typeof GROUP_COLUMNS

/** A subtree by LIKE, not by range: the column has the database's collation, where '/' and '0' need not sort as bytes. */
const subtree = (q: UsageQuery) => (q.userPath === undefined ? '' : ` AND (usage_records.user_path = $3 OR usage_records.user_path LIKE $4 ESCAPE '\\')`)
const rangeParams = (q: UsageQuery) => (q.userPath === undefined ? [q.fromMs, q.toMs] : [q.fromMs, q.toMs, q.userPath, `${likeLiteral(q.userPath)}/%`])

export function postgresUsageStore(sql: SQL) {
  return {
    async writeBatch(records: readonly UsageRecord[]): Promise<void> {
      if (records.length === 0) return
      try {
        await copyIn(sql, COPY_BATCH, copyText(records))
      } catch (err) {
        if (!isUniqueViolation(err)) throw err
        await sql.unsafe(INSERT_OR_SKIP, [JSON.stringify(records)])
      }
    },
    async totals(q: UsageQuery): Promise<UsageTotals> {
      const [row] = await sql.unsafe(`SELECT ${SUMS} FROM usage_records WHERE ts >= $1 AND ts < $2${subtree(q)}`, rangeParams(q))
      return row as UsageTotals
    },
    async breakdown(q: UsageQuery, by: Group, interval?: 'day'): Promise<UsageBreakdownRow[]> {
      const column = GROUP_COLUMNS[by]
      const day = interval === 'day' ? `, to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day` : ''
      const group = interval === 'day' ? `1, day` : '1'
      const from = by === 'label' ? 'usage_records LEFT JOIN LATERAL unnest(usage_records.labels) AS l(label) ON true' : 'usage_records'
      return (await sql.unsafe(
        `SELECT ${column} AS ${by === 'key' ? 'key_id' : by}${day}, ${SUMS} FROM ${from} WHERE ts >= $1 AND ts < $2${subtree(q)} GROUP BY ${group} ORDER BY ${interval === 'day' ? 'day, ' : ''}cost_usd DESC, requests DESC`,
        rangeParams(q),
      )) as UsageBreakdownRow[]
    },
  }
}

export function postgresPriceStore(db: PgDb) {
  return {
    async all(): Promise<Record<string, ModelPrice>> {
      return Object.fromEntries((await db.select().from(priceOverrides)).map((r) => [r.model, r.price as ModelPrice]))
    },
    async set(model: string, price: ModelPrice): Promise<void> {
      const values = { model, price, updatedAt: new Date().toISOString() }
      await db.insert(priceOverrides).values(values).onConflictDoUpdate({ target: priceOverrides.model, set: values })
    },
    async delete(model: string): Promise<boolean> {
      return (await db.delete(priceOverrides).where(eq(priceOverrides.model, model)).returning({ m: priceOverrides.model })).length > 0
    },
  }
}
