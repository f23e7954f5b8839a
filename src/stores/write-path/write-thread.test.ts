import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeEntry, rowsOf, T0 } from '../../../test/helpers/audit-entries.ts'
import { auditRowId } from '../../audit/record.ts'
import { silentLogger } from '../../log/logger.ts'
import { usageRecord as sampleUsage } from '../../../test/helpers/store-records.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { SqliteAuditStore } from '../sqlite/audit-log.ts'
import { openSqlite } from '../sqlite/client.ts'
import { migrateSqlite } from '../sqlite/migrate.ts'
import { sqliteUsageStore } from '../sqlite/usage.ts'
import { packRows } from './packed-rows.ts'
import { startWriteThread, type BatchWrites, WriteThreadError } from './write-thread.ts'
import { postgresAvailable, sharedPostgres } from '../../../test/helpers/postgres-server.ts'
import { isTransientWriteError } from '../errors.ts'
import { PostgresAuditStore } from '../postgres/audit-log.ts'
import { applyPgMigrations, connectPostgres } from '../postgres/client.ts'
import { postgresMigrations } from '../postgres/migrations.ts'
import { ensurePartitions } from '../postgres/partitions.ts'
import { postgresUsageStore } from '../postgres/usage.ts'
import { tempDirs } from '../../../test/helpers/temp-dirs.ts'

const tempDir = tempDirs('write-thread-')

function database() {
  const dir = tempDir()
  const path = join(dir, 'gateway.db')
  const db = openSqlite(path)
  migrateSqlite(db)
  return { path, db }
}

const usageRecord = (id: string): UsageRecord => sampleUsage(id, { cached_tokens: 0, cost_usd: 0.001, labels: undefined })

const refusingFallback: BatchWrites = {
  writeAudit: () => Promise.reject(new Error('the fallback must not be used')),
  writeUsage: () => Promise.reject(new Error('the fallback must not be used')),
  close: () => {},
}

/** A main-thread fallback that stores nothing and records the ids of what it was given. */
function recordingFallback(): { stored: string[]; fallback: BatchWrites } {
  const stored: string[] = []
  const fallback: BatchWrites = {
    writeAudit: async (rows) => (stored.push(...rows.map(auditRowId)), rows.length),
    writeUsage: async (r) => void stored.push(...r.map((x) => x.id)),
    close: () => {},
  }
  return { stored, fallback }
}

test('audit entries and usage records are stored by the thread, on its own connection, interleaved', async () => {
  const { path, db } = database()
  const writes = startWriteThread({ backend: 'sqlite', path }, refusingFallback, silentLogger)
  try {
    const entries = rowsOf(Array.from({ length: 30 }, (_, i) => makeEntry({ at: T0 + i })))
    const [a, , b] = await Promise.all([writes.writeAudit(entries.slice(0, 15)), writes.writeUsage([usageRecord('u1'), usageRecord('u2')]), writes.writeAudit(entries.slice(15))])
    expect(a + b).toBe(30)
    // A replayed batch (after a crash between write and acknowledgement) is not stored twice.
    expect(await writes.writeAudit(entries.slice(0, 5))).toBe(0)
    const page = await new SqliteAuditStore(db).list({ limit: 100, offset: 0 })
    expect(page.total).toBe(30)
    const totals = await sqliteUsageStore(db).totals({ fromMs: T0 - 1, toMs: T0 + 1 })
    expect(totals).toMatchObject({ requests: 2, input_tokens: 20, output_tokens: 10 })
  } finally {
    writes.close()
    db.close()
  }
})

test('a thread that cannot start hands its batches to the main-thread fallback', async () => {
  const { path, db } = database()
  const { stored, fallback } = recordingFallback()
  const writes = startWriteThread({ backend: 'sqlite', path }, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
  const entry = makeEntry({ at: T0 })
  expect(await writes.writeAudit(rowsOf([entry]))).toBe(1)
  await writes.writeUsage([usageRecord('u9')])
  expect(stored).toEqual([entry.id, 'u9'])
  writes.close()
  db.close()
})

test('batches encoded by another process (a worker of GATEWAY_WORKERS) are stored as given, by the thread or the fallback', async () => {
  const { path, db } = database()
  const writes = startWriteThread({ backend: 'sqlite', path }, refusingFallback, silentLogger)
  const { stored, fallback } = recordingFallback()
  const broken = startWriteThread({ backend: 'sqlite', path }, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
  try {
    const entries = Array.from({ length: 4 }, (_, i) => makeEntry({ at: T0 + i }))
    const rows = rowsOf(entries)
    expect(await writes.writeEncodedAudit(packRows(rows))).toBe(4)
    expect(await writes.writeEncodedUsage(JSON.stringify([usageRecord('e1')]))).toBe(1)
    const page = await new SqliteAuditStore(db).list({ limit: 10, offset: 0 })
    expect(page.entries.map((e) => e.id).sort()).toEqual(entries.map((e) => e.id).sort())
    expect(await sqliteUsageStore(db).totals({ fromMs: T0 - 1, toMs: T0 + 1 })).toMatchObject({ requests: 1 })
    expect(await broken.writeEncodedAudit(packRows(rows.slice(0, 1)))).toBe(1)
    expect(await broken.writeEncodedUsage(JSON.stringify([usageRecord('e2')]))).toBe(1)
    expect(stored).toEqual([entries[0]!.id, 'e2'])
  } finally {
    writes.close()
    broken.close()
    db.close()
  }
})

test('retention deletes expired entries on the thread, batch by batch, and on the fallback when the thread is gone', async () => {
  const { path, db } = database()
  const writes = startWriteThread({ backend: 'sqlite', path }, refusingFallback, silentLogger)
  try {
    expect(await writes.writeAudit(rowsOf(Array.from({ length: 10 }, (_, i) => makeEntry({ at: T0 + i }))))).toBe(10)
    // The six entries older than T0 + 6, at most four per call.
    expect(await writes.deleteAuditOlderThan!(T0 + 6, 4)).toBe(4)
    expect(await writes.deleteAuditOlderThan!(T0 + 6, 4)).toBe(2)
    expect(await writes.deleteAuditOlderThan!(T0 + 6, 4)).toBe(0)
    expect((await new SqliteAuditStore(db).list({ limit: 100, offset: 0 })).total).toBe(4)
  } finally {
    writes.close()
  }
  const deleted: number[] = []
  const fallback: BatchWrites = { ...refusingFallback, deleteAuditOlderThan: async (cutoffMs, batch) => (deleted.push(cutoffMs, batch), 0) }
  const broken = startWriteThread({ backend: 'sqlite', path }, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
  expect(await broken.deleteAuditOlderThan!(T0 + 9, 7)).toBe(0)
  expect(deleted).toEqual([T0 + 9, 7])
  broken.close()
  db.close()
})

describe.skipIf(!postgresAvailable())('on PostgreSQL', () => {
  test('audit entries and usage records are encoded and stored by the thread, on connections of its own', async () => {
    const url = await (await sharedPostgres()).freshDatabase()
    const sql = connectPostgres({ url, poolSize: 2, tls: undefined })
    await applyPgMigrations(sql, postgresMigrations, silentLogger)
    await ensurePartitions(sql, T0)
    const writes = startWriteThread({ backend: 'postgres', settings: { url, poolSize: 10, tls: undefined } }, refusingFallback, silentLogger)
    try {
      const entries = rowsOf(Array.from({ length: 20 }, (_, i) => makeEntry({ at: T0 + i, data: { error_message: 'Rate limit reached' } as never })))
      const [a, , b] = await Promise.all([writes.writeAudit(entries.slice(0, 10)), writes.writeUsage([usageRecord('p1')]), writes.writeAudit(entries.slice(10))])
      expect(a + b).toBe(20)
      expect(await writes.writeAudit(entries.slice(0, 3))).toBe(0) // a replay stores nothing twice
      const audit = new PostgresAuditStore(sql)
      expect((await audit.list({ limit: 50, offset: 0, search: 'rate limit' })).total).toBe(20)
      expect(await postgresUsageStore(sql).totals({ fromMs: T0 - 1, toMs: T0 + 1 })).toMatchObject({ requests: 1 })
      // Two connections of the thread's own beside the one above.
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()`
      expect(n).toBeGreaterThanOrEqual(2)
    } finally {
      writes.close()
      await sql.close()
    }
  })

  test('a server that cannot be reached fails the batch as unreachable, a refused batch as refused', async () => {
    const url = await (await sharedPostgres()).freshDatabase()
    const writes = startWriteThread({ backend: 'postgres', settings: { url, poolSize: 2, tls: undefined } }, refusingFallback, silentLogger)
    const nowhere = startWriteThread(
      { backend: 'postgres', settings: { url: 'postgres://postgres@127.0.0.1:9/none', poolSize: 2, tls: undefined } },
      refusingFallback,
      silentLogger,
    )
    try {
      // No migrations ran on this database: the server refuses the COPY (no such table), reachable as it is.
      const refused = await writes.writeAudit(rowsOf([makeEntry({ at: T0 })])).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(WriteThreadError)
      expect(refused).toMatchObject({ unreachable: false, message: expect.stringContaining('42P01') })
      const unreachable = await nowhere.writeUsage([usageRecord('x')]).catch((e: unknown) => e)
      expect(unreachable).toBeInstanceOf(WriteThreadError)
      expect((unreachable as WriteThreadError).unreachable).toBe(true)
      expect(isTransientWriteError(unreachable)).toBe(true)
    } finally {
      writes.close()
      nowhere.close()
    }
  })
})
