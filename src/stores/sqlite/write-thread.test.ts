import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeEntry, rowsOf, T0 } from '../../../test/helpers/audit-entries.ts'
import { auditRowId } from '../../audit/record.ts'
import { silentLogger } from '../../log/logger.ts'
import { usageRecord as sampleUsage } from '../../../test/helpers/store-records.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { SqliteAuditStore } from './audit-log.ts'
import { openSqlite } from './client.ts'
import { migrateSqlite } from './migrate.ts'
import { sqliteUsageStore } from './usage.ts'
import { packRows } from './packed-rows.ts'
import { startWriteThread, type BatchWrites } from './write-thread.ts'
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

test('audit entries and usage records are stored by the thread, on its own connection, interleaved', async () => {
  const { path, db } = database()
  const writes = startWriteThread(path, refusingFallback, silentLogger)
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
  const stored: string[] = []
  const fallback: BatchWrites = {
    writeAudit: async (rows) => (stored.push(...rows.map(auditRowId)), rows.length),
    writeUsage: async (r) => void stored.push(...r.map((x) => x.id)),
    close: () => {},
  }
  const writes = startWriteThread(path, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
  const entry = makeEntry({ at: T0 })
  expect(await writes.writeAudit(rowsOf([entry]))).toBe(1)
  await writes.writeUsage([usageRecord('u9')])
  expect(stored).toEqual([entry.id, 'u9'])
  writes.close()
  db.close()
})

test('batches encoded by another process (a worker of GATEWAY_WORKERS) are stored as given, by the thread or the fallback', async () => {
  const { path, db } = database()
  const writes = startWriteThread(path, refusingFallback, silentLogger)
  const stored: string[] = []
  const fallback: BatchWrites = {
    writeAudit: async (rows) => (stored.push(...rows.map(auditRowId)), rows.length),
    writeUsage: async (r) => void stored.push(...r.map((x) => x.id)),
    close: () => {},
  }
  const broken = startWriteThread(path, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
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
  const writes = startWriteThread(path, refusingFallback, silentLogger)
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
  const broken = startWriteThread(path, fallback, silentLogger, new URL('./no-such-worker.ts', import.meta.url).href)
  expect(await broken.deleteAuditOlderThan!(T0 + 9, 7)).toBe(0)
  expect(deleted).toEqual([T0 + 9, 7])
  broken.close()
  db.close()
})
