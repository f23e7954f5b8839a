/**
 * @module Brings a SQLite database to the current schema at start-up: the drizzle-kit migrations (./drizzle,
 * embedded), recorded in drizzle's own `__drizzle_migrations` table, applied in one IMMEDIATE transaction so
 * two processes opening one file at once never both apply them (the second waits, then finds them applied).
 *
 * A database made before drizzle (it has `schema_migrations`) is first completed with the legacy migrations it
 * lacks, which leaves it exactly at the drizzle baseline; the baseline is then recorded as applied, not run.
 */
import type { Database } from 'bun:sqlite'
import { type EmbeddedMigration, embeddedMigrations } from '../embedded-migrations.ts'
import { applyMigrations } from './client.ts'
import { migrationFiles, migrationJournal } from './drizzle/index.ts'
import { legacyMigrations } from './legacy-migrations.ts'

const MIGRATIONS_TABLE = '__drizzle_migrations'

export const sqliteMigrations: readonly EmbeddedMigration[] = embeddedMigrations(migrationJournal, migrationFiles, 'src/stores/sqlite/drizzle/index.ts')

/** Applies what is missing; resolves to the tags applied now (empty when the database was current). */
export function migrateSqlite(db: Database, migrations: readonly EmbeddedMigration[] = sqliteMigrations): string[] {
  return db
    .transaction(() => {
      // Same table as drizzle-orm's migrator, so drizzle-kit tooling reads the state too.
      db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
      const record = db.query(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`)
      let last = db.query<{ at: number }, []>(`SELECT created_at AS at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`).get()?.at
      if (last === undefined && hasTable(db, 'schema_migrations')) {
        applyMigrations(db, legacyMigrations)
        const baseline = migrations[0]!
        record.run(baseline.hash, baseline.when)
        last = baseline.when
      }
      const applied: string[] = []
      for (const m of migrations) {
        if (last !== undefined && Number(last) >= m.when) continue
        for (const statement of m.statements) db.exec(statement)
        record.run(m.hash, m.when)
        applied.push(m.tag)
      }
      return applied
    })
    .immediate()
}

const hasTable = (db: Database, name: string) => db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== null
