import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { usageRecord } from '../../../test/helpers/store-records.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { applyMigrations } from './client.ts'
import { legacyMigrations, usageLabelsMigration } from './legacy-migrations.ts'
import { migrateSqlite, sqliteMigrations } from './migrate.ts'
import { sqliteUsageStore } from './usage.ts'

const T0 = Date.UTC(2026, 0, 10, 12)
const record = (id: string, labels?: string[], total = 10): UsageRecord =>
  usageRecord(id, { ts: T0, user_path: '/', prompt_tokens: total, completion_tokens: 0, total_tokens: total, cached_tokens: 0, cost_usd: total / 1000, labels })
const range = { fromMs: T0 - 1, toMs: T0 + 1 }

test('by=label: a request counts under each of its labels; records without labels under ""', async () => {
  const db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  const store = sqliteUsageStore(db)
  await store.writeBatch([record('a', ['x', 'y'], 10), record('b', ['y'], 20), record('c', [], 40), record('d', undefined, 80)])
  const rows = await store.breakdown(range, 'label')
  const byLabel = Object.fromEntries(rows.map((r) => [r.label, { requests: r.requests, total_tokens: r.total_tokens }]))
  expect(byLabel).toEqual({ x: { requests: 1, total_tokens: 10 }, y: { requests: 2, total_tokens: 30 }, '': { requests: 2, total_tokens: 120 } })
  expect((await store.totals(range)).requests).toBe(4)
})

test('upgrade in place: records written before the labels migration count as unlabelled', async () => {
  const db = new Database(':memory:', { strict: true })
  applyMigrations(
    db,
    legacyMigrations.filter((m) => m.id !== usageLabelsMigration.id),
  )
  db.query(
    "INSERT INTO usage_records (id, ts, key_id, user_path, provider_name, provider_type, model, requested_model, prompt_tokens, completion_tokens, total_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, cost_usd, saved_usd, rewrite_tokens_saved, rewrite_cost_saved, priced, estimated, cache_hit) VALUES ('old', ?, 'k', '/', 'openai', 'openai', 'm', 'm', 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)",
  ).run(T0)
  // The legacy migrations it lacked, then the drizzle migrations after the baseline (which it now matches).
  expect(migrateSqlite(db)).toEqual(sqliteMigrations.slice(1).map((m) => m.tag))
  expect(db.query('SELECT id FROM schema_migrations ORDER BY id DESC LIMIT 1').get()).toEqual({ id: usageLabelsMigration.id })
  const store = sqliteUsageStore(db)
  await store.writeBatch([record('new', ['z'])])
  const rows = await store.breakdown(range, 'label')
  expect(rows.map((r) => [r.label, r.requests]).sort()).toEqual([
    ['', 1],
    ['z', 1],
  ])
})
