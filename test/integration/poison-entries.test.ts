/**
 * A non-transient database error (here a NOT NULL constraint) on one entry of a batch: the real SQLite store, its
 * write thread and the writers in front of it store every other entry at once and set aside only the one the
 * database refuses (the audit entry in the dead-letter file, the usage record logged as `rejected`).
 */
import { afterEach, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { openStores } from '../../src/stores/open.ts'
import type { Stores } from '../../src/stores/types.ts'
import { makeEntry } from '../helpers/audit-entries.ts'
import { usageRecord } from '../helpers/store-records.ts'

const dirs: string[] = []
let stores: Stores | undefined
afterEach(async () => {
  await stores?.auditSink.drain(2000)
  await stores?.usageSink.drain()
  await stores?.close()
  stores = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function open() {
  const dir = mkdtempSync(join(tmpdir(), 'poison-entries-'))
  dirs.push(dir)
  const path = join(dir, 'gateway.db')
  const config = loadConfig({ env: { GATEWAY_DB_PATH: path, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' }, cwd: dir })
  stores = await openStores(config, silentLogger)
  stores.auditSink.start()
  return { stores, path }
}

const count = (path: string, table: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  } finally {
    db.close()
  }
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(10)
  }
}

test('audit: the entry the database refuses is dead-lettered after one failed batch; the rest of its batch is stored', async () => {
  const { stores, path } = await open()
  const entries = Array.from({ length: 10 }, (_, i) => makeEntry({ at: Date.UTC(2026, 10, 24) + i }))
  // An unparseable timestamp encodes (JSON has no trouble with it) but its `ts` column is NULL: NOT NULL fails.
  const bad = { ...entries[4]!, timestamp: 'not a time' }
  entries[4] = bad
  for (const e of entries) stores.auditSink.record(e)
  await until(() => stores.auditSink.stats().failed === 1 && stores.auditSink.stats().written === 9)
  expect(stores.auditSink.stats()).toMatchObject({ written: 9, failed: 1, batch_failures: 1, queue_depth: 0 })
  expect(count(path, 'audit_log')).toBe(9)
  const deadLetters = readFileSync(`${path}.audit-spill/audit-dead-letter.jsonl`, 'utf8').trim().split('\n')
  expect(deadLetters).toHaveLength(1)
  expect(deadLetters[0]).toContain(bad.id)
  // Later entries are not held up by it.
  stores.auditSink.record(makeEntry({ at: Date.UTC(2026, 10, 24, 1) }))
  await until(() => stores.auditSink.stats().written === 10)
})

test('usage: the record the database refuses is set aside after one failed batch; the others are stored', async () => {
  const { stores, path } = await open()
  const records = Array.from({ length: 10 }, (_, i) => usageRecord(crypto.randomUUID(), { ts: Date.UTC(2026, 10, 24) + i }))
  // A malformed record: its model is missing, which the NOT NULL column refuses.
  records[6] = { ...records[6]!, model: null as unknown as string }
  for (const r of records) stores.usageSink.record(r)
  await stores.usageSink.flush()
  expect(stores.usageSink.stats()).toMatchObject({ written: 9, rejected: 1, batch_failures: 1, queued: 0 })
  expect(count(path, 'usage_records')).toBe(9)
})
