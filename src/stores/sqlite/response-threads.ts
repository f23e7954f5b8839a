/**
 * @module Stored Responses conversations, so `previous_response_id` works on any provider: each response keeps
 * the whole thread as Responses input items (its input plus its output).
 */
import type { Database } from 'bun:sqlite'
import { eq, sql } from 'drizzle-orm'
import type { ResponseThreadStore } from '../types.ts'
import { orm } from './client.ts'
import { responseThreads } from './schema.ts'

export function sqliteResponseThreadStore(db: Database): ResponseThreadStore {
  const o = orm(db)
  const t = responseThreads
  // Prepared once: both run on the thread serving requests (a follow-up's lookup, an answer's save).
  const select = o
    .select({ id: t.id, providerName: t.providerName, native: t.native, items: t.items })
    .from(t)
    .where(eq(t.id, sql.placeholder('id')))
    .prepare()
  const row = {
    id: sql.placeholder('id'),
    createdAt: sql.placeholder('createdAt'),
    providerName: sql.placeholder('providerName'),
    native: sql.placeholder('native'),
    items: sql.placeholder('items'),
  }
  const upsert = o
    .insert(t)
    .values(row)
    .onConflictDoUpdate({
      target: t.id,
      set: { createdAt: sql`excluded.created_at`, providerName: sql`excluded.provider_name`, native: sql`excluded.native`, items: sql`excluded.items` },
    })
    .prepare()
  return {
    async get(id) {
      return select.get({ id }) ?? undefined
    },
    async save(thread) {
      upsert.run({ id: thread.id, createdAt: new Date().toISOString(), providerName: thread.providerName, native: thread.native, items: thread.items })
    },
  }
}
