import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { makeEntry } from '../../../test/helpers/audit-entries.ts'
import { tempDirs } from '../../../test/helpers/temp-dirs.ts'
import type { AuditLogEntry } from '../../audit/entry.ts'
import type { AuditRow } from '../../audit/record.ts'
import { silentLogger } from '../../log/logger.ts'
import { openSqlite } from '../sqlite/client.ts'
import { migrateSqlite } from '../sqlite/migrate.ts'
import { AuditWriter, type AuditWriterOptions } from './audit-writer.ts'
import { SpillFiles } from './spill.ts'
import { type BatchWrites, startWriteThread } from './write-thread.ts'

const tempDir = tempDirs('writer-saturation-')

const refusingFallback: BatchWrites = {
  writeAudit: () => Promise.reject(new Error('the fallback must not be used')),
  writeUsage: () => Promise.reject(new Error('the fallback must not be used')),
  close: () => {},
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(10)
  }
}

const OPTIONS: AuditWriterOptions = { capacity: 100, maxBytes: 64 * 1024 * 1024, batchSize: 20, flushIntervalMs: 5 }

test('a writer that falls behind holds only its queue in memory, spills the rest and shows the lag; a stop keeps its deadline; after a restart every entry is stored', async () => {
  const dir = tempDir()
  const path = join(dir, 'gateway.db')
  const db = openSqlite(path)
  migrateSqlite(db)
  const spillDir = join(dir, 'spill')

  // The gateway's own write thread on a real database, each batch held back 1 ms per row: at most about 1,000
  // entries a second are stored (replayed chunks too), and entries arrive at up to four times that.
  const thread = startWriteThread({ backend: 'sqlite', path }, refusingFallback, silentLogger)
  const slowed = {
    async writeBatch(rows: readonly AuditRow[]) {
      await Bun.sleep(rows.length)
      return thread.writeAudit(rows)
    },
  }
  const writer = new AuditWriter(slowed, new SpillFiles(spillDir), OPTIONS, silentLogger)
  writer.start()
  const entries: AuditLogEntry[] = []
  let deepest = 0
  for (let tick = 0; tick < 100; tick++) {
    for (let i = 0; i < 40; i++) {
      const entry = makeEntry({ data: { request_body: { messages: [{ role: 'user', content: `request ${entries.length}` }] } } })
      entries.push(entry)
      writer.record(entry)
    }
    deepest = Math.max(deepest, writer.stats().queue_depth)
    await Bun.sleep(10)
  }
  const saturated = writer.stats()
  // Memory holds the queue's bound, no more; the backlog is in the spill files, and the lag says how old it is.
  expect(deepest).toBeLessThanOrEqual(OPTIONS.capacity)
  expect(saturated).toMatchObject({ state: 'spilling', held: 0, lost: 0 })
  expect(saturated.spilled).toBeGreaterThan(entries.length / 4)
  expect(saturated.spill_bytes).toBeGreaterThan(0)
  expect(saturated.lag_ms).toBeGreaterThan(500)

  // A graceful stop with a short deadline: what is not stored by then is spilled for the next start.
  const stopping = Date.now()
  await writer.drain(300)
  expect(Date.now() - stopping).toBeLessThan(300 + 1000)
  expect(writer.stats()).toMatchObject({ queue_depth: 0, held: 0, lost: 0 })
  const storedBeforeRestart = (db.query('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n
  expect(storedBeforeRestart).toBeLessThan(entries.length)
  thread.close()

  // The restart: a new thread and writer on the same database and spill folder, at full speed.
  const next = startWriteThread({ backend: 'sqlite', path }, refusingFallback, silentLogger)
  const restarted = new AuditWriter({ writeBatch: (rows) => next.writeAudit(rows) }, new SpillFiles(spillDir), { ...OPTIONS, batchSize: 500 }, silentLogger)
  restarted.start()
  expect(restarted.stats().lag_ms).toBeGreaterThanOrEqual(0)
  await until(() => restarted.stats().spill_files === 0, 20_000)
  await restarted.drain()
  expect(restarted.stats()).toMatchObject({ lag_ms: 0, lost: 0, failed: 0, state: 'ok' })
  next.close()

  const stored = new Set((db.query('SELECT id FROM audit_log').all() as { id: string }[]).map((r) => r.id))
  expect(stored.size).toBe(entries.length)
  expect(entries.filter((e) => !stored.has(e.id)).map((e) => e.id)).toEqual([])
  db.close()
}, 30_000)
