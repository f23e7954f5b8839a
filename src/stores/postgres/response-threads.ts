/**
 * @module Stored Responses conversations in PostgreSQL, so `previous_response_id` works on any provider and on
 * any replica: each response keeps the whole thread as Responses input items.
 */
import { eq } from 'drizzle-orm'
import type { PgDb } from './client.ts'
import { responseThreads } from './schema.ts'

export interface PgResponseThread {
  id: string
  providerName: string
  native: boolean
  items: unknown[]
}

export function postgresResponseThreadStore(db: PgDb) {
  return {
    async get(id: string): Promise<PgResponseThread | undefined> {
      const [row] = await db.select().from(responseThreads).where(eq(responseThreads.id, id))
      return row ? { id: row.id, providerName: row.providerName, native: row.native, items: row.items as unknown[] } : undefined
    },
    async save(thread: PgResponseThread): Promise<void> {
      const values = { id: thread.id, createdAt: new Date().toISOString(), providerName: thread.providerName, native: thread.native, items: thread.items }
      await db.insert(responseThreads).values(values).onConflictDoUpdate({ target: responseThreads.id, set: values })
    },
  }
}
