/**
 * @module Budget and rate-limit definitions in SQLite (one JSON document per row).
 */
import type { Database } from 'bun:sqlite'
import { and, eq } from 'drizzle-orm'
import type { Budget, RateLimit } from '../../limits/definitions.ts'
import type { LimitStore } from '../types.ts'
import { orm } from './orm.ts'
import { limitDefinitions } from './schema.ts'

type Kind = 'budget' | 'rate_limit'

export function sqliteLimitStore(db: Database): LimitStore {
  const o = orm(db)
  const all = (kind: Kind) =>
    o
      .select({ definition: limitDefinitions.definition })
      .from(limitDefinitions)
      .where(eq(limitDefinitions.kind, kind))
      .orderBy(limitDefinitions.createdAt)
      .all()
      .map((r) => JSON.parse(r.definition))
  const put = (kind: Kind, d: Budget | RateLimit) => {
    const row = { id: d.id, kind, definition: JSON.stringify(d), createdAt: d.created_at }
    o.insert(limitDefinitions).values(row).onConflictDoUpdate({ target: limitDefinitions.id, set: row }).run()
  }
  const remove = (kind: Kind, id: string) =>
    o
      .delete(limitDefinitions)
      .where(and(eq(limitDefinitions.id, id), eq(limitDefinitions.kind, kind)))
      .returning({ id: limitDefinitions.id })
      .all().length > 0
  return {
    async budgets() {
      return all('budget') as Budget[]
    },
    async rateLimits() {
      return all('rate_limit') as RateLimit[]
    },
    async saveBudget(b) {
      put('budget', b)
    },
    async saveRateLimit(r) {
      put('rate_limit', r)
    },
    async deleteBudget(id) {
      return remove('budget', id)
    },
    async deleteRateLimit(id) {
      return remove('rate_limit', id)
    },
  }
}
