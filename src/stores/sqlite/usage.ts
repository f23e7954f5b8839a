/**
 * @module Usage records in SQLite, and the sums the admin API reports over a time range.
 */
import type { Database } from 'bun:sqlite'
import { and, eq, gte, lt, or, sql } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { PriceStore, UsageBreakdownRow, UsageGroup, UsageQuery, UsageReader, UsageTotals } from '../types.ts'
import { unitSums } from '../../usage/units.ts'
import { orm } from './orm.ts'
import { sqliteUsageWriter } from './usage-writes.ts'
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

export function sqliteUsageStore(db: Database): UsageReader & ReturnType<typeof sqliteUsageWriter> {
  const o = orm(db)
  // A subtree as a range ('/a/' ≤ x < '/a0': '0' follows '/' in SQLite's binary collation).
  const inSubtree = (path: string) => or(eq(u.userPath, path), and(gte(u.userPath, `${path}/`), lt(u.userPath, `${path}0`)))
  const inRange = (q: UsageQuery) => and(gte(u.ts, q.fromMs), lt(u.ts, q.toMs), q.userPath === undefined ? undefined : inSubtree(q.userPath))
  return {
    ...sqliteUsageWriter(db),
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
