/**
 * @module Weekly partitions of the audit tables: made ahead of time (so inserts land in a partition of their own
 * week, not the DEFAULT one), and dropped whole once they are past the retention cutoff, which costs no row
 * deletes and no vacuum. Runs under the stores' lease, on one replica at a time.
 *
 * Weeks, not days: a list's default 30-day window is planned over 5 partitions instead of 30, and planning over
 * every partition's indexes was most of the list's time at 1M entries (docs/audit.md). Databases made before kept
 * their day partitions: a week is only ever filled around them (its days no partition covers become one
 * partition), so old and new ranges never overlap, and the day partitions leave with retention.
 */
import type { SQL } from 'bun'
import { PARTITIONED_TABLES } from './migrations.ts'

const DAY_MS = 86_400_000
const WEEK_MS = 7 * DAY_MS
/** 1970-01-01 was a Thursday: weeks start on Monday 00:00 UTC, four days after the epoch. */
const MONDAY_MS = 4 * DAY_MS
/** How far ahead of now partitions are kept ready. */
const AHEAD_MS = 3 * DAY_MS

const weekStart = (ms: number) => Math.floor((ms - MONDAY_MS) / WEEK_MS) * WEEK_MS + MONDAY_MS
const suffix = (start: number) => new Date(start).toISOString().slice(0, 10).replaceAll('-', '')

interface Range {
  from: number
  to: number
}

/** The ranges the audit_log partitions cover (the DEFAULT partition has none). */
async function partitionRanges(sql: SQL): Promise<Range[]> {
  const rows = await sql<{ bound: string }[]>`
    SELECT pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'audit_log'`
  const ranges: Range[] = []
  for (const { bound } of rows) {
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound)
    if (m) ranges.push({ from: Number(m[1]), to: Number(m[2]) })
  }
  return ranges.sort((a, b) => a.from - b.from)
}

/** The parts of [from, to) that no range covers. */
export function uncovered(from: number, to: number, ranges: readonly Range[]): Range[] {
  const gaps: Range[] = []
  let at = from
  for (const r of ranges) {
    if (r.to <= at || r.from >= to) continue
    if (r.from > at) gaps.push({ from: at, to: r.from })
    at = Math.max(at, r.to)
  }
  if (at < to) gaps.push({ from: at, to })
  return gaps
}

/** Creates the missing partitions from `fromMs`'s week to the week of three days after `nowMs`. */
export async function ensurePartitions(sql: SQL, nowMs: number, fromMs = nowMs - DAY_MS): Promise<number> {
  const existing = new Set((await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid`).map((r) => r.name))
  const ranges = await partitionRanges(sql)
  let made = 0
  for (let week = weekStart(fromMs); week <= weekStart(nowMs + AHEAD_MS); week += WEEK_MS) {
    for (const gap of uncovered(week, week + WEEK_MS, ranges)) {
      for (const table of PARTITIONED_TABLES) {
        const name = `${table}_w${suffix(gap.from)}`
        if (existing.has(name)) continue
        try {
          await sql.unsafe(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM (${gap.from}) TO (${gap.to})`)
          made++
        } catch (err) {
          // The DEFAULT partition already holds rows of this range (written before the partition existed):
          // those stay in DEFAULT, whose rows retention deletes one by one.
          if (!/would be violated by some row|updated partition constraint/i.test((err as Error).message)) throw err
        }
      }
    }
  }
  return made
}

/** Drops the partitions that end at or before the cutoff; resolves to how many entries they held. */
export async function dropPartitionsBefore(sql: SQL, cutoffMs: number): Promise<number> {
  const rows = await sql<{ name: string; bound: string }[]>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'audit_log'`
  let dropped = 0
  for (const row of rows) {
    const to = /TO \('?(-?\d+)'?\)/.exec(row.bound)?.[1]
    if (to === undefined || Number(to) > cutoffMs) continue
    // `p20261124` (a day partition of an older release) or `w20261123`: the same suffix on all three tables.
    const range = row.name.slice('audit_log_'.length)
    const count = Number((await sql.unsafe(`SELECT count(*)::int AS n FROM ${row.name}`))[0]?.n ?? 0)
    for (const table of PARTITIONED_TABLES) await sql.unsafe(`DROP TABLE IF EXISTS ${table}_${range}`)
    dropped += count
  }
  return dropped
}
