/**
 * @module The drizzle query layer over an embedded SQLite connection (client.ts opens them).
 */
import type { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'

export type Orm = BunSQLiteDatabase

const orms = new WeakMap<Database, Orm>()

/** The drizzle query layer over a connection (one per connection, made on first use). */
export function orm(db: Database): Orm {
  let o = orms.get(db)
  if (!o) orms.set(db, (o = drizzle({ client: db })))
  return o
}
