/**
 * @module Connects to PostgreSQL with Bun's built-in client (pool size and TLS from config) and applies the
 * migrations (migrations.ts), recorded in drizzle's own `drizzle.__drizzle_migrations` table, in one transaction
 * while holding an advisory lock, so replicas starting together never race: the first applies them, the others
 * wait for the lock and then find nothing left to do.
 *
 * A database made before drizzle-kit (its own `schema_migrations` list, ids `0001_core`, `0002_audit_log`) has
 * exactly the schema of the first two drizzle-kit migrations: those it has are recorded as applied, not run.
 * `schema_migrations` is left as it was.
 */
import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Logger } from '../../log/logger.ts'
import { BEFORE_DRIZZLE_KIT, type PgMigration } from './migrations.ts'

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
  // `rejectUnauthorized` spelled out: Bun's client takes `tls: true` (or `{}`) as encrypt-only and accepts any
  // certificate for any host name.
  else if (settings.tls === 'verify-full') tls = { rejectUnauthorized: true, ...(settings.tlsCaFile ? { ca: Bun.file(settings.tlsCaFile) } : {}) }
  else if (settings.tls === 'disable') tls = false
  return new SQL({ url: settings.url, max: settings.poolSize, idleTimeout: 60, connectionTimeout: 10, ...(tls === undefined ? {} : { tls }) })
}

/**
 * The start-up message for a connection TLS refused (the certificate's authority or host name, or a server
 * without TLS), naming the setting to change; undefined for any other error.
 */
export function tlsFailureMessage(err: unknown, settings: PostgresSettings): string | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code !== 'string') return undefined
  const host = hostOf(settings.url)
  const said = `(${code}: ${String(message)})`
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `PostgreSQL's certificate does not name the host '${host}' ${said}: with DATABASE_TLS=verify-full, DATABASE_URL must use a host name the certificate lists.`
  if (code === 'ERR_POSTGRES_TLS_NOT_AVAILABLE') return `PostgreSQL at '${host}' does not accept TLS connections ${said}, and DATABASE_TLS=${settings.tls} requires one.`
  if (code === 'ERR_POSTGRES_TLS_UPGRADE_FAILED') return `The TLS connection to PostgreSQL at '${host}' failed ${said} (DATABASE_TLS=${settings.tls}).`
  if (TLS_FAILURE_CODE.test(code))
    return `PostgreSQL's certificate at '${host}' is not signed by a trusted authority ${said}: with DATABASE_TLS=verify-full, set DATABASE_TLS_CA_FILE to the PEM bundle of the authority that signed it${settings.tlsCaFile ? ` (now ${settings.tlsCaFile})` : ' (now the system store)'}.`
  return undefined
}

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return '?'
  }
}

/** Bun's client's own codes for a connection it could not make, or lost (bun-types: `SQL.PostgresError`). */
const CLIENT_CONNECTION_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
  'ERR_POSTGRES_IDLE_TIMEOUT',
  'ERR_POSTGRES_LIFETIME_TIMEOUT',
])

/** A TLS handshake that failed: no TLS on the server, or a certificate not trusted or not naming the host. */
const TLS_FAILURE_CODE = /^ERR_POSTGRES_TLS_|^ERR_TLS_CERT|CERT|UNABLE_TO_(GET|VERIFY)|SELF_SIGNED/

/** A socket's own codes, should one arrive without the client's wrapping. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * SQLSTATEs the server sends about the connection rather than the statement: class 08 (connection exception),
 * 57P01-57P03 (administrator or crash shutdown, starting up or in recovery), 57P05 (idle session timeout),
 * 53300 (too many connections).
 */
const CONNECTION_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1235]|53300)$/

/**
 * True only for a failure to reach the server or a lost connection: the client's connection codes, a socket's, a
 * TLS handshake that failed (a certificate changed under a running gateway: retried, like an outage), or a
 * connection SQLSTATE, found on the error or its `cause` (drizzle wraps the client's error in a
 * DrizzleQueryError). Anything else (an error about the statement, a fault of the gateway's own code) is not:
 * counted as unreachable it would mark a running server down, answer 503s and be retried forever, instead of
 * reaching the writers' isolate-and-dead-letter path.
 */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno } = e as { code?: unknown; errno?: unknown }
    if (typeof code !== 'string') continue
    if (CLIENT_CONNECTION_CODES.has(code) || SOCKET_CODES.has(code) || TLS_FAILURE_CODE.test(code)) return true
    if (code === 'ERR_POSTGRES_SERVER_ERROR') return typeof errno === 'string' && CONNECTION_SQLSTATE.test(errno)
  }
  return false
}

export const drizzleOn = (sql: SQL) => drizzle({ client: sql })
export type PgDb = ReturnType<typeof drizzleOn>

/** Lock ids of the jobs that must run on one replica at a time (pg_advisory_lock takes a bigint). */
export const ADVISORY_LOCKS = { migrations: 7_150_001, retention: 7_150_002, partitions: 7_150_003 } as const

/** Applies what is missing; resolves to the tags applied now (empty when the database was current). */
export async function applyPgMigrations(sql: SQL, migrations: readonly PgMigration[], log: Logger): Promise<string[]> {
  const reserved = await sql.reserve()
  try {
    await reserved`SELECT pg_advisory_lock(${ADVISORY_LOCKS.migrations})`
    try {
      const applied = await reserved.begin(async (tx) => {
        // Same schema and table as drizzle-orm's own migrator, so drizzle-kit tooling reads the state too.
        await tx`CREATE SCHEMA IF NOT EXISTS drizzle`
        await tx`CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`
        const record = (m: PgMigration) => tx`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${m.hash}, ${m.when})`
        let last = (await tx<{ at: string }[]>`SELECT created_at::text AS at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`)[0]?.at
        if (last === undefined && (await tx`SELECT to_regclass('schema_migrations') AS t`)[0]?.t) {
          const legacy = new Set((await tx<{ id: string }[]>`SELECT id FROM schema_migrations`).map((r) => BEFORE_DRIZZLE_KIT[r.id]))
          for (const m of migrations) {
            if (!legacy.has(m.tag)) break
            await record(m)
            last = String(m.when)
          }
        }
        const done: string[] = []
        for (const m of migrations) {
          if (last !== undefined && Number(last) >= m.when) continue
          for (const statement of m.statements) await tx.unsafe(statement)
          await record(m)
          done.push(m.tag)
        }
        return done
      })
      if (applied.length > 0) log.info({ migrations: applied }, 'PostgreSQL migrations applied')
      return applied
    } finally {
      await reserved`SELECT pg_advisory_unlock(${ADVISORY_LOCKS.migrations})`
    }
  } finally {
    reserved.release()
  }
}
