/**
 * @module Opens the embedded SQLite store (16 KiB pages, WAL, NORMAL sync) and runs the legacy migrations
 * (legacy-migrations.ts; new databases get the drizzle migrations, migrate.ts). No drizzle-orm here: the write
 * thread opens its connection with this alone (the query layer is orm.ts).
 */
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

export interface Migration {
  /** Unique and ordered, e.g. `0002_api_keys`. */
  id: string
  sql: string
}

export function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { create: true, strict: true })
  // Only takes effect on a new file. 16 KiB pages roughly halve the system time of writing audit rows (each
  // carrying headers and bodies) compared with the 4 KiB default.
  db.exec('PRAGMA page_size = 16384')
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA foreign_keys = ON')
  return db
}

export function applyMigrations(db: Database, migrations: readonly Migration[]): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)')
  const applied = new Set(
    db
      .query<{ id: string }, []>('SELECT id FROM schema_migrations')
      .all()
      .map((r) => r.id),
  )
  const done: string[] = []
  for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
    if (applied.has(m.id)) continue
    db.transaction(() => {
      db.exec(m.sql)
      db.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($id, $at)').run({ id: m.id, at: new Date().toISOString() })
    })()
    done.push(m.id)
  }
  return done
}
