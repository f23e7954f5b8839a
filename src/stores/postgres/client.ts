/**
 * @module Connects to PostgreSQL with Bun's built-in client (pool size and TLS from config) and applies the
 * migrations under an advisory lock, so replicas starting together never race: the first applies them, the
 * others wait for the lock and then find nothing left to do.
 */
import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Logger } from '../../log/logger.ts'
import type { PgMigration } from './migrations.ts'

export interface PostgresSettings {
  url: string
  poolSize: number
  /** `disable`, `require` (encrypted, any certificate) or `verify-full` (certificate and host name checked). */
  tls: 'disable' | 'require' | 'verify-full' | undefined
  /** PEM bundle of the certificate authorities to trust with `verify-full`. */
  tlsCaFile?: string
}

export function connectPostgres(settings: PostgresSettings): SQL {
  let tls: boolean | import('bun').TLSOptions | undefined
  if (settings.tls === 'require') tls = { rejectUnauthorized: false }
  else if (settings.tls === 'verify-full') tls = settings.tlsCaFile ? { ca: Bun.file(settings.tlsCaFile) } : true
  else if (settings.tls === 'disable') tls = false
  return new SQL({ url: settings.url, max: settings.poolSize, idleTimeout: 60, connectionTimeout: 10, ...(tls === undefined ? {} : { tls }) })
}

export const drizzleOn = (sql: SQL) => drizzle({ client: sql })
export type PgDb = ReturnType<typeof drizzleOn>

/** Lock ids of the jobs that must run on one replica at a time (pg_advisory_lock takes a bigint). */
export const ADVISORY_LOCKS = { migrations: 7_150_001, retention: 7_150_002, partitions: 7_150_003 } as const

export async function applyPgMigrations(sql: SQL, migrations: readonly PgMigration[], log: Logger): Promise<string[]> {
  const reserved = await sql.reserve()
  try {
    await reserved`SELECT pg_advisory_lock(${ADVISORY_LOCKS.migrations})`
    try {
      await reserved`CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
      const applied = new Set((await reserved<{ id: string }[]>`SELECT id FROM schema_migrations`).map((r) => r.id))
      const done: string[] = []
      for (const m of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
        if (applied.has(m.id)) continue
        await reserved.begin(async (tx) => {
          await tx.unsafe(m.sql)
          await tx`INSERT INTO schema_migrations (id) VALUES (${m.id})`
        })
        done.push(m.id)
      }
      if (done.length > 0) log.info({ migrations: done }, 'PostgreSQL migrations applied')
      return done
    } finally {
      await reserved`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.migrations})`
    }
  } finally {
    reserved.release()
  }
}
