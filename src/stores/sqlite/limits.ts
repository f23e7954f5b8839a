/**
 * @module Budget and rate-limit definitions in SQLite (one JSON document per row).
 */
import type { Database } from 'bun:sqlite'
import type { Budget, RateLimit } from '../../limits/definitions.ts'
import type { LimitStore } from '../types.ts'
import type { Migration } from './client.ts'

export const limitsMigration: Migration = {
  id: '0007_limits',
  sql: `CREATE TABLE limit_definitions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('budget', 'rate_limit')),
    definition TEXT NOT NULL,
    created_at TEXT NOT NULL
  );`,
}

export function sqliteLimitStore(db: Database): LimitStore {
  const all = (kind: string) => db.query<{ definition: string }, { kind: string }>('SELECT definition FROM limit_definitions WHERE kind = $kind ORDER BY created_at').all({ kind }).map((r) => JSON.parse(r.definition))
  const put = db.query('INSERT OR REPLACE INTO limit_definitions (id, kind, definition, created_at) VALUES ($id, $kind, $definition, $created_at)')
  const remove = db.query('DELETE FROM limit_definitions WHERE id = $id AND kind = $kind')
  return {
    async budgets() {
      return all('budget') as Budget[]
    },
    async rateLimits() {
      return all('rate_limit') as RateLimit[]
    },
    async saveBudget(b) {
      put.run({ id: b.id, kind: 'budget', definition: JSON.stringify(b), created_at: b.created_at })
    },
    async saveRateLimit(r) {
      put.run({ id: r.id, kind: 'rate_limit', definition: JSON.stringify(r), created_at: r.created_at })
    },
    async deleteBudget(id) {
      return remove.run({ id, kind: 'budget' }).changes > 0
    },
    async deleteRateLimit(id) {
      return remove.run({ id, kind: 'rate_limit' }).changes > 0
    },
  }
}
