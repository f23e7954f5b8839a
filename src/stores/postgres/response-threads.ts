/**
 * @module Stored Responses conversations in PostgreSQL, so `previous_response_id` works on any provider and on
 * any replica: each response keeps the whole thread as Responses input items, with its owner (key and user path);
 * only the owner reads it back.
 */
import { and, eq, inArray, lt, sql } from 'drizzle-orm'
import type { ResponseThreadStore } from '../types.ts'
import type { PgDb } from './client.ts'
import { responseThreads } from './schema.ts'

export function postgresResponseThreadStore(db: PgDb): ResponseThreadStore {
  const t = responseThreads
  return {
    async get(id, owner) {
      const [row] = await db
        .select()
        .from(t)
        .where(and(eq(t.id, id), eq(t.principalId, owner.principalId), eq(t.userPath, owner.userPath)))
      if (!row) return undefined
      return {
        id: row.id,
        owner: { principalId: row.principalId, userPath: row.userPath },
        providerName: row.providerName,
        native: row.native,
        items: row.items as unknown[],
        response: row.response ?? null,
      }
    },
    async save(thread) {
      const { principalId, userPath } = thread.owner
      const replaced = { createdAt: new Date().toISOString(), providerName: thread.providerName, native: thread.native, items: thread.items, response: thread.response }
      await db
        .insert(t)
        .values({ id: thread.id, principalId, userPath, ...replaced })
        // Another owner's thread with the same id stays as it is: a save never takes a thread over.
        .onConflictDoUpdate({ target: t.id, set: replaced, setWhere: sql`${t.principalId} = excluded.principal_id AND ${t.userPath} = excluded.user_path` })
    },
    async delete(id, owner) {
      const deleted = await db
        .delete(t)
        .where(and(eq(t.id, id), eq(t.principalId, owner.principalId), eq(t.userPath, owner.userPath)))
        .returning({ id: t.id })
      return deleted.length > 0
    },
    async deleteOlderThan(cutoffMs, batch) {
      const expired = db
        .select({ id: t.id })
        .from(t)
        .where(lt(t.createdAt, new Date(cutoffMs).toISOString()))
        .limit(batch)
      return (await db.delete(t).where(inArray(t.id, expired)).returning({ id: t.id })).length
    },
  }
}
