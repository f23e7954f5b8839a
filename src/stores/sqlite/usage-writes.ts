/**
 * @module Usage records stored in SQLite: one raw prepared insert, no query builder, so the write thread
 * (thread-writes.ts) loads neither drizzle-orm nor the schema (about 7 MiB of its heap under `bun`; usage.ts
 * keeps the reports, which use them).
 */
import type { Database } from 'bun:sqlite'
import type { UsageRecord } from '../../usage/record.ts'
import type { UsageBatchWriter } from '../write-path/usage-writer.ts'

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

export function sqliteUsageWriter(db: Database): UsageBatchWriter {
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
  }
}
