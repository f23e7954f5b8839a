/**
 * @module Usage records in SQLite, and the sums the admin API reports over a time range.
 */
import type { Database } from 'bun:sqlite'
import type { UsageRecord } from '../../usage/record.ts'
import type { UsageBatchWriter } from '../write-path/usage-writer.ts'
import { and, eq, gte, lt, or, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { PriceStore, UsageBreakdownRow, UsageGroup, UsageQuery, UsageReader, UsageTotals } from '../types.ts'
import { unitSums } from '../../usage/units.ts'
import { orm } from './client.ts'
import { priceOverrides, usageRecords } from './schema.ts'

const u = usageRecords
const total = (column: SQLiteColumn) => sql<number>`COALESCE(SUM(${column}), 0)`
/** The sums every usage answer reports, by their API names. */
const SUMS = {
  requests: sql<number>`COUNT(*)`.as('requests'),
  input_tokens: total(u.promptTokens).as('input_tokens'),
  output_tokens: total(u.completionTokens).as('output_tokens'),
  total_tokens: total(u.totalTokens).as('total_tokens'),
  cached_input_tokens: total(u.cachedTokens).as('cached_input_tokens'),
  cache_write_input_tokens: total(u.cacheWriteTokens).as('cache_write_input_tokens'),
  reasoning_tokens: total(u.reasoningTokens).as('reasoning_tokens'),
  cost_usd: total(u.costUsd).as('cost_usd'),
  saved_usd: total(u.savedUsd).as('saved_usd'),
  rewrite_tokens_saved: total(u.rewriteTokensSaved).as('rewrite_tokens_saved'),
  rewrite_cost_saved: total(u.rewriteCostSaved).as('rewrite_cost_saved'),
  estimated_requests: total(u.estimated).as('estimated_requests'),
  cache_hits: total(u.cacheHit).as('cache_hits'),
  ...unitSums((unit, name) => sql<number>`COALESCE(SUM(CASE WHEN ${u.unit} = ${unit} THEN ${u.units} END), 0)`.as(name)),
}

/** One label per joined json_each row; '' for requests without labels. */
const label = sql<string>`COALESCE(l.value, '')`.as('label')
const GROUP_COLUMNS = { model: u.model, provider: u.providerName, key: u.keyId, user_path: u.userPath } as const
const GROUP_NAMES = { model: 'model', provider: 'provider', key: 'key_id', user_path: 'user_path', label: 'label' } as const

/** Column order of the raw insert below. */
const COLUMNS = [
  'id',
  'ts',
  'key_id',
  'user_path',
  'provider_name',
  'provider_type',
  'model',
  'requested_model',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
  'saved_usd',
  'rewrite_tokens_saved',
  'rewrite_cost_saved',
  'priced',
  'estimated',
  'cache_hit',
  'labels',
  'unit',
  'units',
  'unit_variant',
] as const

const rowValues = (r: UsageRecord): (string | number)[] => [
  r.id,
  r.ts,
  r.key_id,
  r.user_path,
  r.provider_name,
  r.provider_type,
  r.model,
  r.requested_model,
  r.prompt_tokens,
  r.completion_tokens,
  r.total_tokens,
  r.cached_tokens,
  r.cache_write_tokens,
  r.reasoning_tokens,
  r.cost_usd,
  r.saved_usd,
  r.rewrite_tokens_saved,
  r.rewrite_cost_saved,
  r.priced ? 1 : 0,
  r.estimated ? 1 : 0,
  r.cache_hit ? 1 : 0,
  JSON.stringify(r.labels ?? []),
  r.unit ?? '',
  r.units ?? 0,
  r.unit_variant ?? '',
]

export function sqliteUsageStore(db: Database): UsageReader & UsageBatchWriter {
  const o = orm(db)
  // A subtree as a range ('/a/' ≤ x < '/a0': '0' follows '/' in SQLite's binary collation).
  const inSubtree = (path: string) => or(eq(u.userPath, path), and(gte(u.userPath, `${path}/`), lt(u.userPath, `${path}0`)))
  const inRange = (q: UsageQuery) => and(gte(u.ts, q.fromMs), lt(u.ts, q.toMs), q.userPath === undefined ? undefined : inSubtree(q.userPath))
  // A raw prepared statement: on the write thread, drizzle's insert (even prepared) measured 2–50× slower per batch.
  // ON CONFLICT (id), not OR IGNORE: a replayed record is skipped, but a record a constraint refuses (a NULL in a
  // NOT NULL column) must fail, so the writer sets it aside and logs it instead of it vanishing as "written".
  const insert = db.query(`INSERT INTO usage_records (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (id) DO NOTHING`)
  return {
    async writeBatch(records) {
      db.transaction(() => {
        for (const r of records) insert.run(...rowValues(r))
      }).immediate()
    },
    async totals(q: UsageQuery): Promise<UsageTotals> {
      return o.select(SUMS).from(u).where(inRange(q)).get()!
    },
    async breakdown(q: UsageQuery, by: UsageGroup, interval?: 'day') {
      const group = by === 'label' ? label : GROUP_COLUMNS[by]
      const day = sql<string>`strftime('%Y-%m-%d', ${u.ts} / 1000, 'unixepoch')`.as('day')
      const columns = { [GROUP_NAMES[by]]: group, ...(interval === 'day' ? { day } : {}), ...SUMS }
      const from = by === 'label' ? o.select(columns).from(u).leftJoin(sql`json_each(${u.labels}) l`, sql`1`) : o.select(columns).from(u)
      const order = [sql`cost_usd DESC`, sql`requests DESC`]
      const rows = from
        .where(inRange(q))
        .groupBy(...(by === 'label' ? [sql`label`] : [GROUP_COLUMNS[by]]), ...(interval === 'day' ? [sql`day`] : []))
        .orderBy(...(interval === 'day' ? [sql`day`, ...order] : order))
        .all()
      return rows as UsageBreakdownRow[]
    },
  }
}

export function sqlitePriceStore(db: Database): PriceStore {
  const o = orm(db)
  return {
    async all() {
      return Object.fromEntries(
        o
          .select()
          .from(priceOverrides)
          .all()
          .map((r) => [r.model, JSON.parse(r.price)]),
      )
    },
    async set(model, price) {
      const row = { model, price: JSON.stringify(price), updatedAt: new Date().toISOString() }
      o.insert(priceOverrides).values(row).onConflictDoUpdate({ target: priceOverrides.model, set: row }).run()
    },
    async delete(model) {
      return o.delete(priceOverrides).where(eq(priceOverrides.model, model)).returning({ model: priceOverrides.model }).all().length > 0
    },
  }
}
