/**
 * @module Stored Responses conversations, so `previous_response_id` works on any provider: each response keeps
 * the whole thread as Responses input items (its input plus its output).
 */
import type { Database } from 'bun:sqlite'
import type { ResponseThreadStore } from '../types.ts'
import type { Migration } from './client.ts'

export const responseThreadsMigration: Migration = {
  id: '0004_response_threads',
  sql: `CREATE TABLE response_threads (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    native INTEGER NOT NULL,
    items TEXT NOT NULL
  );
  CREATE INDEX response_threads_created_at ON response_threads (created_at);`,
}

export function sqliteResponseThreadStore(db: Database): ResponseThreadStore {
  const select = db.query<{ id: string; provider_name: string; native: number; items: string }, { id: string }>('SELECT id, provider_name, native, items FROM response_threads WHERE id = $id')
  const insert = db.query('INSERT OR REPLACE INTO response_threads (id, created_at, provider_name, native, items) VALUES ($id, $created_at, $provider_name, $native, $items)')
  return {
    async get(id) {
      const row = select.get({ id })
      return row ? { id: row.id, providerName: row.provider_name, native: row.native === 1, items: JSON.parse(row.items) } : undefined
    },
    async save(thread) {
      insert.run({ id: thread.id, created_at: new Date().toISOString(), provider_name: thread.providerName, native: thread.native ? 1 : 0, items: JSON.stringify(thread.items) })
    },
  }
}
