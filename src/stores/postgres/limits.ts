/**
 * @module Budget and rate-limit definitions in PostgreSQL (one JSON document per row).
 */
import { and, eq } from 'drizzle-orm'
import type { Budget, RateLimit } from '../../limits/definitions.ts'
import type { LimitStore } from '../types.ts'
import type { PgDb } from './client.ts'
import { limitDefinitions } from './schema.ts'

export function postgresLimitStore(db: PgDb): LimitStore {
  const all = async (kind: string) =>
    (await db.select({ d: limitDefinitions.definition }).from(limitDefinitions).where(eq(limitDefinitions.kind, kind)).orderBy(limitDefinitions.createdAt)).map((r) => r.d)
  const put = async (id: string, kind: string, definition: unknown, createdAt: string) => {
    await db.insert(limitDefinitions).values({ id, kind, definition, createdAt }).onConflictDoUpdate({ target: limitDefinitions.id, set: { kind, definition, createdAt } })
  }
  const remove = async (id: string, kind: string) =>
    (
      await db
        .delete(limitDefinitions)
        .where(and(eq(limitDefinitions.id, id), eq(limitDefinitions.kind, kind)))
        .returning({ id: limitDefinitions.id })
    ).length > 0
  return {
    budgets: async () => (await all('budget')) as Budget[],
    rateLimits: async () => (await all('rate_limit')) as RateLimit[],
    saveBudget: (b) => put(b.id, 'budget', b, b.created_at),
    saveRateLimit: (r) => put(r.id, 'rate_limit', r, r.created_at),
    deleteBudget: (id) => remove(id, 'budget'),
    deleteRateLimit: (id) => remove(id, 'rate_limit'),
  }
}
