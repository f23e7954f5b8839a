/**
 * @module Stored Responses conversations, so `previous_response_id` works on any provider: each response keeps
 * the whole thread as Responses input items (its input plus its output), with its owner (key and user path); only
 * the owner reads it back.
 */
import type { Database } from 'bun:sqlite'
import { and, eq, sql } from 'drizzle-orm'
import type { ResponseThreadStore } from '../types.ts'
import { orm } from './orm.ts'
import { responseThreads } from './schema.ts'

export function sqliteResponseThreadStore(db: Database): ResponseThreadStore {
  const o = orm(db)
  const t = responseThreads
  // Prepared once: both run on the thread serving requests (a follow-up's lookup, an answer's save).
  const select = o
    .select({ id: t.id, principalId: t.principalId, userPath: t.userPath, providerName: t.providerName, native: t.native, items: t.items, response: t.response })
    .from(t)
    .where(and(eq(t.id, sql.placeholder('id')), eq(t.principalId, sql.placeholder('principalId')), eq(t.userPath, sql.placeholder('userPath'))))
    .prepare()
  const row = {
    id: sql.placeholder('id'),
    createdAt: sql.placeholder('createdAt'),
    principalId: sql.placeholder('principalId'),
    userPath: sql.placeholder('userPath'),
    providerName: sql.placeholder('providerName'),
    native: sql.placeholder('native'),
    items: sql.placeholder('items'),
    response: sql.placeholder('response'),
  }
  const upsert = o
    .insert(t)
    .values(row)
    .onConflictDoUpdate({
      target: t.id,
      set: {
        createdAt: sql`excluded.created_at`,
        providerName: sql`excluded.provider_name`,
        native: sql`excluded.native`,
        items: sql`excluded.items`,
        response: sql`excluded.response`,
      },
      // Another owner's thread with the same id stays as it is: a save never takes a thread over.
      setWhere: sql`${t.principalId} = excluded.principal_id AND ${t.userPath} = excluded.user_path`,
    })
    .prepare()
  const deleteOwned = db.query<never, { id: string; principalId: string; userPath: string }>(
    'DELETE FROM response_threads WHERE id = $id AND principal_id = $principalId AND user_path = $userPath',
  )
  const deleteOlder = db.query<never, { cutoff: string; batch: number }>(
    'DELETE FROM response_threads WHERE id IN (SELECT id FROM response_threads WHERE created_at < $cutoff LIMIT $batch)',
  )
  return {
    async get(id, owner) {
      const found = select.get({ id, principalId: owner.principalId, userPath: owner.userPath })
      if (!found) return undefined
      const { principalId, userPath, response, ...thread } = found
      return { ...thread, response: response ?? null, owner: { principalId, userPath } }
    },
    async save(thread) {
      upsert.run({
        id: thread.id,
        createdAt: new Date().toISOString(),
        principalId: thread.owner.principalId,
        userPath: thread.owner.userPath,
        providerName: thread.providerName,
        native: thread.native,
        items: thread.items,
        response: thread.response,
      })
    },
    async delete(id, owner) {
      return deleteOwned.run({ id, principalId: owner.principalId, userPath: owner.userPath }).changes > 0
    },
    async deleteOlderThan(cutoffMs, batch) {
      return deleteOlder.run({ cutoff: new Date(cutoffMs).toISOString(), batch }).changes
    },
  }
}
