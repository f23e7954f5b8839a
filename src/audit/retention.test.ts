import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { silentLogger } from '../log/logger.ts'
import { SqliteAuditStore } from '../stores/sqlite/audit-log.ts'
import { migrateSqlite } from '../stores/sqlite/migrate.ts'
import { makeEntry, rowsOf } from '../../test/helpers/audit-entries.ts'
import { loadConfig } from '../config/load.ts'
import { MemoryLease } from '../stores/memory/lease.ts'
import type { AuditReader, AuditSink } from '../stores/types.ts'
import { createAuditLog } from './audit-log.ts'
import { AuditRetention } from './retention.ts'

const DAY = 86_400_000
const NOW = Date.UTC(2026, 10, 22, 12)

class CountingStore extends SqliteAuditStore {
  deletes = 0
  override deleteOlderThan(cutoffMs: number, batch: number) {
    this.deletes++
    return super.deleteOlderThan(cutoffMs, batch)
  }
}

async function storeWithAges(daysOld: number[]) {
  const db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  const store = new CountingStore(db)
  await store.writeBatch(rowsOf(daysOld.map((d) => makeEntry({ at: NOW - d * DAY }))))
  const count = async () => (await store.list({ limit: 1, offset: 0 })).total
  return { store, count }
}

test('deletes entries older than the retention window in small batches, keeps the rest', async () => {
  const ages = [...Array.from({ length: 25 }, () => 40), 31, 29, 1, 0]
  const { store, count } = await storeWithAges(ages)
  const retention = new AuditRetention(store, { retentionDays: 30, batchSize: 10, pauseMs: 0, now: () => NOW }, silentLogger)
  expect(await retention.runOnce()).toBe(26)
  expect(store.deletes).toBe(3) // 10 + 10 + 6
  expect(await count()).toBe(3)
})

test('0 keeps everything', async () => {
  const { store, count } = await storeWithAges([400, 40, 0])
  const retention = new AuditRetention(store, { retentionDays: 0, now: () => NOW }, silentLogger)
  expect(retention.enabled).toBe(false)
  expect(await retention.runOnce()).toBe(0)
  retention.start()
  await retention.stop()
  expect(await count()).toBe(3)
})

test('runs on its timer until stopped', async () => {
  const { store, count } = await storeWithAges([10, 10, 0])
  const retention = new AuditRetention(store, { retentionDays: 5, intervalMs: 20, now: () => NOW }, silentLogger)
  retention.start()
  const deadline = Date.now() + 2000
  while ((await count()) !== 1 && Date.now() < deadline) await Bun.sleep(10)
  await retention.stop()
  expect(await count()).toBe(1)
})

test("the audit log deletes expired entries through the stores' expiry when they have one (SQLite: the write thread)", async () => {
  const config = loadConfig({ env: { LOGGING_RETENTION_DAYS: '7' } })
  const expired: number[] = []
  const log = createAuditLog(
    config,
    {
      audit: { deleteOlderThan: () => Promise.reject(new Error('retention must not delete through the reader')) } as unknown as AuditReader,
      auditSink: {} as AuditSink,
      auditExpiry: { deleteOlderThan: async (cutoffMs) => (expired.push(cutoffMs), 0) },
      lease: new MemoryLease(),
    },
    silentLogger,
  )
  const before = Date.now()
  expect(await log.retention.runOnce()).toBe(0)
  expect(expired).toHaveLength(1)
  expect(expired[0]).toBeGreaterThanOrEqual(before - 7 * DAY)
  expect(expired[0]).toBeLessThanOrEqual(Date.now() - 7 * DAY)
})
