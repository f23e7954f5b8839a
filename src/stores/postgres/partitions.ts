/**
 * @module Daily partitions of the audit tables: made a few days ahead (so inserts land in a partition of their own
 * day, not the DEFAULT one), and dropped whole once they are past the retention cutoff, which costs no row
 * deletes and no vacuum. Runs under the stores' lease, on one replica at a time.
 */
import type { SQL } from 'bun'
import { PARTITIONED_TABLES } from './migrations.ts'

const DAY_MS = 86_400_000
/** Days of partitions kept ready ahead of today. */
const AHEAD_DAYS = 3

const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS
const suffix = (start: number) => new Date(start).toISOString().slice(0, 10).replaceAll('-', '')

/** Creates the missing partitions from `fromMs`'s day to AHEAD_DAYS after `nowMs`'s. */
export async function ensurePartitions(sql: SQL, nowMs: number, fromMs = nowMs - DAY_MS): Promise<number> {
  const existing = new Set((await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid`).map((r) => r.name))
  let made = 0
  for (let start = dayStart(fromMs); start <= dayStart(nowMs) + AHEAD_DAYS * DAY_MS; start += DAY_MS) {
    for (const table of PARTITIONED_TABLES) {
      const name = `${table}_p${suffix(start)}`
      if (existing.has(name)) continue
      try {
        await sql.unsafe(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM (${start}) TO (${start + DAY_MS})`)
        made++
      } catch (err) {
        // The DEFAULT partition already holds rows of this day (written before the partition existed): those
        // days stay in DEFAULT, whose rows retention deletes one by one.
        if (!/would be violated by some row|updated partition constraint/i.test((err as Error).message)) throw err
      }
    }
  }
  return made
}

/** Drops the partitions that end at or before the cutoff; resolves to how many entries they held (estimated). */
export async function dropPartitionsBefore(sql: SQL, cutoffMs: number): Promise<number> {
  const rows = await sql<{ name: string; bound: string; estimate: number }[]>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, GREATEST(c.reltuples, 0)::float8 AS estimate
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'audit_log'`
  let dropped = 0
  for (const row of rows) {
    const to = /TO \('?(-?\d+)'?\)/.exec(row.bound)?.[1]
    if (to === undefined || Number(to) > cutoffMs) continue
    const day = row.name.slice('audit_log_'.length)
    const count = Number((await sql.unsafe(`SELECT count(*)::int AS n FROM ${row.name}`))[0]?.n ?? 0)
    for (const table of PARTITIONED_TABLES) await sql.unsafe(`DROP TABLE IF EXISTS ${table}_${day}`)
    dropped += count
  }
  return dropped
}
