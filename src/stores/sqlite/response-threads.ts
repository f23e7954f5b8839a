/**
 * @module Stored Responses conversations, so `previous_response_id` works on any provider: each response keeps
 * the whole thread as Responses input items (its input plus its output).
 */
import type { Database } from 'bun:sqlite'
import { eq } from 'drizzle-orm'
import type { ResponseThreadStore } from '../types.ts'
import { orm } from './client.ts'
import { responseThreads } from './schema.ts'

export function sqliteResponseThreadStore(db: Database): ResponseThreadStore {
  const o = orm(db)
  return {
    async get(id) {
      const row = o.select({ id: responseThreads.id, providerName: responseThreads.providerName, native: responseThreads.native, items: responseThreads.items }).from(responseThreads).where(eq(responseThreads.id, id)).get()
      return row ?? undefined
    },
    async save(thread) {
      const row = { ...thread, createdAt: new Date().toISOString() }
      o.insert(responseThreads).values(row).onConflictDoUpdate({ target: responseThreads.id, set: row }).run()
    },
  }
}
