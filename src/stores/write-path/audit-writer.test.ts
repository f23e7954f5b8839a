import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '../../log/logger.ts'
import { makeEntry, rowsOf } from '../../../test/helpers/audit-entries.ts'
import { auditRowId, encodeAuditEntry, type AuditRow } from '../../audit/record.ts'
import { StoreUnavailableError } from '../errors.ts'
import { SpillFiles } from './spill.ts'
import { AuditWriter, type AuditBatchWriter, type AuditWriterOptions } from './audit-writer.ts'

/** A batch writer that keeps entries in a Map and can be made slow or failing. */
class FakeStore implements AuditBatchWriter {
  readonly rows = new Map<string, AuditRow>()
  batches: number[] = []
  failNext = 0
  down = false
  poison = new Set<string>()
  gate: Promise<void> | undefined

  async writeBatch(entries: readonly AuditRow[]): Promise<number> {
    await this.gate
    if (this.down) throw new Error('database is locked')
    if (this.failNext > 0) {
      this.failNext--
      throw new Error('disk I/O error')
    }
    if (entries.some((e) => this.poison.has(auditRowId(e)))) throw new Error('cannot store this entry')
    this.batches.push(entries.length)
    let added = 0
    for (const e of entries) {
      if (this.rows.has(auditRowId(e))) continue
      this.rows.set(auditRowId(e), e)
      added++
    }
    return added
  }
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function setup(options: Partial<AuditWriterOptions> = {}, store = new FakeStore(), dir = mkdtempSync(join(tmpdir(), 'audit-writer-'))) {
  dirs.push(dir)
  const writer = new AuditWriter(
    store,
    new SpillFiles(dir),
    { capacity: 1000, maxBytes: 64 * 1024 * 1024, batchSize: 200, flushIntervalMs: 5, retryBaseMs: 5, retryMaxMs: 20, ...options },
    silentLogger,
  )
  return { writer, store, dir }
}

const entry = (i = 0, requestBody?: string) =>
  makeEntry({ at: Date.UTC(2026, 10, 22) + i, data: { error_message: `entry ${i}`, ...(requestBody ? { request_body: requestBody } : {}) } })

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(5)
  }
}

describe('queue and batches', () => {
  test('record returns at once; entries are written later in batches of at most batchSize', async () => {
    const { writer, store } = setup({ batchSize: 200 })
    for (let i = 0; i < 450; i++) writer.record(entry(i))
    expect(store.rows.size).toBe(0) // nothing written while the request is still running
    await until(() => store.rows.size === 450)
    expect(Math.max(...store.batches)).toBeLessThanOrEqual(200)
    expect(writer.stats()).toMatchObject({ recorded: 450, written: 450, queue_depth: 0, spilled: 0 })
  })

  test('entries recorded while a full batch waits for the loop set no timer each: the loop is scheduled once', async () => {
    const { writer, store } = setup({ batchSize: 50, flushIntervalMs: 60_000 })
    const realSetTimeout = globalThis.setTimeout
    let timers = 0
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++
      return realSetTimeout(...args)
    }) as typeof setTimeout
    try {
      // A burst of requests ending in one turn of the event loop, three batches' worth.
      for (let i = 0; i < 150; i++) writer.record(entry(i))
    } finally {
      globalThis.setTimeout = realSetTimeout
    }
    // One timer for the flush interval, one when the first batch is full; none per entry after it.
    expect(timers).toBe(2)
    await until(() => store.rows.size === 150)
  })

  test('a partial batch is written after the flush interval', async () => {
    const { writer, store } = setup({ flushIntervalMs: 30 })
    writer.record(entry())
    await Bun.sleep(10)
    expect(store.rows.size).toBe(0)
    await until(() => store.rows.size === 1)
  })

  test('entries wait unencoded only while their batch fills: behind a full batch they are encoded as they come', async () => {
    const store = new FakeStore()
    let release!: () => void
    store.gate = new Promise((r) => (release = r))
    const { writer, dir } = setup({ batchSize: 3, flushIntervalMs: 60_000 }, store)
    const unencodable = (i: number) => {
      const e = entry(i)
      ;(e.data as Record<string, unknown>).labels = [10n]
      return e
    }
    writer.record(unencodable(0))
    // Still waiting for its batch: nothing has encoded it yet.
    expect(writer.stats()).toMatchObject({ queue_depth: 1, failed: 0 })
    const stored = [entry(1), entry(2), entry(3)]
    for (const e of stored) writer.record(e)
    writer.record(unencodable(4))
    // A batch is queued: the entry behind it was encoded on arrival and set aside at once.
    expect(writer.stats()).toMatchObject({ queue_depth: 4, failed: 1 })
    release()
    store.gate = undefined
    await writer.drain()
    expect([...store.rows.keys()].sort()).toEqual(stored.map((e) => e.id).sort())
    expect(writer.stats()).toMatchObject({ recorded: 5, written: 3, failed: 2, queue_depth: 0, queue_bytes: 0 })
    expect(readFileSync(join(dir, 'audit-dead-letter.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2)
  })

  test('a batch is encoded a slice at a time: what arrives meanwhile runs between slices, the batch is still one write (issue 30)', async () => {
    const { writer, store } = setup({ batchSize: 1000, flushIntervalMs: 5 })
    const total = 400
    let encoded = 0
    let encodedWhenOthersRan: number | undefined
    // Serialised once per encoding: counts encoded entries, and at the first one queues work as a request would.
    const counter = {
      toJSON() {
        if (encoded++ === 0) setImmediate(() => (encodedWhenOthersRan = encoded))
        return 'counted'
      },
    }
    const recorded = Array.from({ length: total }, (_, i) => entry(i))
    for (const e of recorded) {
      ;(e.data as Record<string, unknown>).labels = counter
      writer.record(e)
    }
    await until(() => store.rows.size === total)
    expect(encoded).toBeGreaterThanOrEqual(total)
    // Before: the whole batch was encoded in one go, so the queued work ran only after all 400.
    expect(encodedWhenOthersRan).toBeLessThanOrEqual(encoded / 4)
    expect(store.batches).toEqual([total])
    expect([...store.rows.keys()].sort()).toEqual(recorded.map((e) => e.id).sort())
  })

  test('suppressed entries are counted, not stored', async () => {
    const { writer, store } = setup()
    writer.recordSuppressed()
    writer.recordSuppressed()
    await writer.drain()
    expect(writer.stats().suppressed).toBe(2)
    expect(store.rows.size).toBe(0)
  })
})

describe('overflow', () => {
  test('a full queue spills to disk without blocking, and every entry is stored once the store catches up', async () => {
    const store = new FakeStore()
    let release!: () => void
    store.gate = new Promise((r) => (release = r))
    const { writer, dir } = setup({ capacity: 5, batchSize: 5, flushIntervalMs: 1 }, store)
    const all = Array.from({ length: 50 }, (_, i) => entry(i))
    const t0 = performance.now()
    for (const e of all) writer.record(e)
    expect(performance.now() - t0).toBeLessThan(200)
    expect(writer.stats().spilled).toBe(45)
    const [header, ...lines] = readFileSync(join(dir, 'audit-spill.jsonl'), 'utf8').trim().split('\n')
    expect(JSON.parse(header!)).toMatchObject({ audit_spill: 2 })
    expect(lines).toHaveLength(45)
    release()
    store.gate = undefined
    await until(() => store.rows.size === 50)
    expect([...store.rows.keys()].sort()).toEqual(all.map((e) => e.id).sort())
    await until(() => writer.stats().spill_files === 0)
    expect(writer.stats()).toMatchObject({ written: 50, spilled: 45, replayed: 45, failed: 0 })
  })

  test('the byte budget spills large entries even when the count is low', async () => {
    const { writer, store } = setup({ capacity: 1000, maxBytes: 10_000, flushIntervalMs: 50 })
    // Each entry weighs a little over 4.5 kB (its 4 kB body plus the rest), so two fit in 10 kB.
    for (let i = 0; i < 4; i++) writer.record(entry(i, 'x'.repeat(4_000)))
    expect(writer.stats()).toMatchObject({ queue_depth: 2, spilled: 2 })
    await writer.drain()
    expect(store.rows.size).toBe(4)
  })
})

describe('failures', () => {
  test('an entry JSON cannot encode is dead-lettered by id and counted; record still returns normally', async () => {
    const { writer, store, dir } = setup()
    const broken = entry(1, undefined)
    ;(broken.data as Record<string, unknown>).labels = [10n]
    expect(() => writer.record(broken)).not.toThrow()
    writer.record(entry(2))
    await writer.drain()
    expect(store.rows.size).toBe(1)
    expect(writer.stats()).toMatchObject({ recorded: 2, failed: 1 })
    expect(readFileSync(join(dir, 'audit-dead-letter.jsonl'), 'utf8')).toContain(broken.id)
  })

  test('a failed batch is retried, not discarded', async () => {
    const store = new FakeStore()
    store.failNext = 2
    const { writer } = setup({}, store)
    for (let i = 0; i < 10; i++) writer.record(entry(i))
    await until(() => store.rows.size === 10)
    expect(writer.stats()).toMatchObject({ written: 10, batch_failures: 2, failed: 0, last_error: 'disk I/O error' })
  })

  test('a poison entry goes to the dead-letter file after one failed batch; the rest of its batch is stored', async () => {
    const store = new FakeStore()
    const { writer, dir } = setup({}, store)
    const batch = Array.from({ length: 6 }, (_, i) => entry(i))
    store.poison.add(batch[2]!.id)
    for (const e of batch) writer.record(e)
    await until(() => store.rows.size === 5)
    await until(() => writer.stats().failed === 1)
    expect(writer.stats().batch_failures).toBe(1)
    expect(readFileSync(join(dir, 'audit-dead-letter.jsonl'), 'utf8')).toContain(batch[2]!.id)
  })

  test('when every entry of a batch fails alone the database is at fault: nothing is dead-lettered, all is stored once it recovers', async () => {
    const store = new FakeStore()
    const { writer, dir } = setup({}, store)
    const batch = Array.from({ length: 4 }, (_, i) => entry(i))
    for (const e of batch) store.poison.add(e.id)
    for (const e of batch) writer.record(e)
    await until(() => writer.stats().batch_failures >= 3)
    expect(writer.stats().failed).toBe(0)
    expect(existsSync(join(dir, 'audit-dead-letter.jsonl'))).toBe(false)
    store.poison.clear()
    await until(() => store.rows.size === 4)
    expect(writer.stats().failed).toBe(0)
  })

  test('a database that comes back while a batch is written entry by entry dead-letters nothing', async () => {
    const store = new FakeStore()
    const { writer } = setup({}, store)
    // Unreachable for the first batch attempts and the first two single-entry writes, then back.
    let unreachable = 3 + 2
    const real = store.writeBatch.bind(store)
    store.writeBatch = async (rows) => {
      if (unreachable-- > 0) throw new StoreUnavailableError('PostgreSQL', new Error('connection refused'))
      return real(rows)
    }
    const batch = Array.from({ length: 6 }, (_, i) => entry(i))
    for (const e of batch) writer.record(e)
    await until(() => store.rows.size === 6)
    expect(writer.stats().failed).toBe(0)
  })

  test('while the store is down nothing is lost: drain spills the queue and the next start stores it', async () => {
    const store = new FakeStore()
    store.down = true
    const { writer, dir } = setup({ capacity: 20 }, store)
    const all = Array.from({ length: 30 }, (_, i) => entry(i))
    for (const e of all) writer.record(e)
    await writer.drain(100)
    expect(store.rows.size).toBe(0)
    expect(writer.stats()).toMatchObject({ spilled: 30, queue_depth: 0 })

    const healthy = new FakeStore()
    const next = setup({}, healthy, dir).writer
    next.start()
    await until(() => healthy.rows.size === 30)
    expect([...healthy.rows.keys()].sort()).toEqual(all.map((e) => e.id).sort())
    await next.drain()
    expect(readdirSync(dir).filter((f) => f.startsWith('audit-spill'))).toEqual([])
  })

  test('a torn last line (hard kill mid-write) is set aside; the other lines are replayed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-writer-'))
    const good = [entry(1), entry(2)]
    appendFileSync(
      join(dir, 'audit-spill.jsonl'),
      rowsOf(good)
        .map((row) => JSON.stringify(row))
        .join('\n') + '\n{"id":"torn","timesta',
    )
    const { writer, store } = setup({}, new FakeStore(), dir)
    writer.start()
    await until(() => store.rows.size === 2)
    await writer.drain()
    expect(readFileSync(join(dir, 'audit-dead-letter.jsonl'), 'utf8')).toContain('"id":"torn"')
    expect(existsSync(join(dir, 'audit-spill.jsonl'))).toBe(false)
  })

  test('replaying a file twice (crash after storing, before deleting it) stores nothing twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-writer-'))
    const all = [entry(1), entry(2), entry(3)]
    // Entry lines, as versions before rows spilled them: replayed all the same.
    appendFileSync(join(dir, 'audit-spill.jsonl'), all.map((e) => JSON.stringify(e)).join('\n') + '\n')
    const store = new FakeStore()
    for (const e of all.slice(0, 2)) store.rows.set(e.id, encodeAuditEntry(e))
    const { writer } = setup({}, store, dir)
    writer.start()
    await until(() => store.rows.size === 3)
    await writer.drain()
    expect(writer.stats()).toMatchObject({ written: 1, duplicates: 2 })
  })
})

describe('drain', () => {
  test('writes what is queued at once, also entries recorded while it runs', async () => {
    const { writer, store } = setup({ flushIntervalMs: 60_000 })
    for (let i = 0; i < 250; i++) writer.record(entry(i))
    const draining = writer.drain()
    writer.record(entry(999))
    await draining
    expect(store.rows.size).toBe(251)
  })
})
