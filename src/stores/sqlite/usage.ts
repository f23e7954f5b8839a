/**
 * @module Usage records in SQLite, and the sums the admin API reports over a time range.
 */
import type { Database } from 'bun:sqlite'
import type { UsageRecord } from '../../usage/record.ts'
import type { UsageBatchWriter } from '../../usage/usage-writer.ts'
import type { PriceStore, UsageBreakdownRow, UsageQuery, UsageReader, UsageTotals } from '../types.ts'
import type { Migration } from './client.ts'

export const usageMigration: Migration = {
  id: '0008_usage',
  sql: `CREATE TABLE usage_records (
    id TEXT PRIMARY KEY,
    ts INTEGER NOT NULL,
    key_id TEXT NOT NULL,
    user_path TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    provider_type TEXT NOT NULL,
    model TEXT NOT NULL,
    requested_model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    total_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    saved_usd REAL NOT NULL,
    rewrite_tokens_saved INTEGER NOT NULL,
    rewrite_cost_saved REAL NOT NULL,
    priced INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    cache_hit INTEGER NOT NULL
  );
  CREATE INDEX usage_records_ts ON usage_records (ts);
  CREATE TABLE price_overrides (model TEXT PRIMARY KEY, price TEXT NOT NULL, updated_at TEXT NOT NULL);`,
}

/** A request's labels as a JSON array; `by=label` counts a request once under each of its labels. */
export const usageLabelsMigration: Migration = {
  id: '0010_usage_labels',
  sql: `ALTER TABLE usage_records ADD COLUMN labels TEXT NOT NULL DEFAULT '[]';`,
}

const SUMS = `COUNT(*) AS requests, COALESCE(SUM(prompt_tokens),0) AS input_tokens, COALESCE(SUM(completion_tokens),0) AS output_tokens,
  COALESCE(SUM(total_tokens),0) AS total_tokens, COALESCE(SUM(cached_tokens),0) AS cached_input_tokens,
  COALESCE(SUM(cache_write_tokens),0) AS cache_write_input_tokens, COALESCE(SUM(reasoning_tokens),0) AS reasoning_tokens,
  COALESCE(SUM(cost_usd),0) AS cost_usd, COALESCE(SUM(saved_usd),0) AS saved_usd, COALESCE(SUM(rewrite_tokens_saved),0) AS rewrite_tokens_saved,
  COALESCE(SUM(rewrite_cost_saved),0) AS rewrite_cost_saved, COALESCE(SUM(estimated),0) AS estimated_requests, COALESCE(SUM(cache_hit),0) AS cache_hits`

/** `label` is a column of the joined json_each rows: '' for requests without labels. */
const GROUP_COLUMNS = { model: 'model', provider: 'provider_name', key: 'key_id', user_path: 'user_path', label: "COALESCE(l.value, '')" } as const

export function sqliteUsageStore(db: Database): UsageReader & UsageBatchWriter {
  const insert = db.query(
    `INSERT OR IGNORE INTO usage_records VALUES ($id, $ts, $key_id, $user_path, $provider_name, $provider_type, $model, $requested_model, $prompt_tokens, $completion_tokens, $total_tokens, $cached_tokens, $cache_write_tokens, $reasoning_tokens, $cost_usd, $saved_usd, $rewrite_tokens_saved, $rewrite_cost_saved, $priced, $estimated, $cache_hit, $labels)`,
  )
  const toRow = (r: UsageRecord) => ({ ...r, priced: r.priced ? 1 : 0, estimated: r.estimated ? 1 : 0, cache_hit: r.cache_hit ? 1 : 0, labels: JSON.stringify(r.labels ?? []) })
  return {
    async writeBatch(records) {
      db.transaction(() => {
        for (const r of records) insert.run(toRow(r))
      }).immediate()
    },
    async totals(q: UsageQuery) {
      return db.query<UsageTotals, [number, number]>(`SELECT ${SUMS} FROM usage_records WHERE ts >= ? AND ts < ?`).get(q.fromMs, q.toMs)!
    },
    async breakdown(q: UsageQuery, by: keyof typeof GROUP_COLUMNS, interval?: 'day') {
      const column = GROUP_COLUMNS[by]
      const day = interval === 'day' ? `, strftime('%Y-%m-%d', ts / 1000, 'unixepoch') AS day` : ''
      const group = interval === 'day' ? `${column}, day` : column
      const from = by === 'label' ? 'usage_records LEFT JOIN json_each(usage_records.labels) l' : 'usage_records'
      return db
        .query<UsageBreakdownRow, [number, number]>(`SELECT ${column} AS ${by === 'key' ? 'key_id' : by}${day}, ${SUMS} FROM ${from} WHERE ts >= ? AND ts < ? GROUP BY ${group} ORDER BY ${interval === 'day' ? 'day, ' : ''}cost_usd DESC, requests DESC`)
        .all(q.fromMs, q.toMs)
    },
  }
}

export function sqlitePriceStore(db: Database): PriceStore {
  return {
    async all() {
      return Object.fromEntries(db.query<{ model: string; price: string }, []>('SELECT model, price FROM price_overrides').all().map((r) => [r.model, JSON.parse(r.price)]))
    },
    async set(model, price) {
      db.query('INSERT OR REPLACE INTO price_overrides (model, price, updated_at) VALUES (?, ?, ?)').run(model, JSON.stringify(price), new Date().toISOString())
    },
    async delete(model) {
      return db.query('DELETE FROM price_overrides WHERE model = ?').run(model).changes > 0
    },
  }
}
