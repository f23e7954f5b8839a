import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../../log/logger.ts'
import { silentLogger } from '../../log/logger.ts'
import { makeEntry } from '../../../test/helpers/audit-entries.ts'
import { isTransientWriteError } from '../errors.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { UsageWriter } from './usage-writer.ts'
import { auditRowId, type AuditRow } from '../../audit/record.ts'
import { SpillFiles, usageSpillFormat } from './spill.ts'
import { AuditWriter, type AuditBatchWriter, type AuditWriterOptions } from './audit-writer.ts'

/**
 * A store on a disk that fills: while `full`, a batch fails with the error SQLite (or the file system) gives, but,
 * as on a real disk that frees a page now and then, one write in `acceptEvery` gets through.
 */
class FillingStore implements AuditBatchWriter {
  readonly rows = new Map<string, AuditRow>()
  full = false
  acceptEvery = 3
  error = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
  private calls = 0

  async writeBatch(batch: readonly AuditRow[]): Promise<number> {
    if (this.full && ++this.calls % this.acceptEvery !== 0) throw this.error()
    let added = 0
    for (const row of batch) {
      if (this.rows.has(auditRowId(row))) continue
      this.rows.set(auditRowId(row), row)
      added++
    }
    return added
  }
}

/** A spill folder on the same full disk: appends fail with ENOSPC while `full`. */
class FullSpill<Row = AuditRow> extends SpillFiles<Row> {
  full = false
  override append(rows: readonly Row[]): number {
    if (this.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    return super.append(rows)
  }
  override deadLetter(lines: readonly string[]): void {
    if (this.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    super.deadLetter(lines)
  }
}

/** Keeps error log lines, to check that a loss is logged at once with the ids. */
function recordingLogger() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = []
  const logger = {
    ...silentLogger,
    error: (obj: Record<string, unknown>, msg: string) => errors.push({ obj, msg }),
    warn: () => {},
    info: () => {},
  } as unknown as Logger
  return { logger, errors }
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function setup(options: Partial<AuditWriterOptions> = {}, log: Logger = silentLogger) {
  const dir = mkdtempSync(join(tmpdir(), 'audit-full-disk-'))
  dirs.push(dir)
  const store = new FillingStore()
  const spill = new FullSpill(dir)
  const writer = new AuditWriter(store, spill, { capacity: 50, maxBytes: 64 * 1024 * 1024, batchSize: 20, flushIntervalMs: 2, retryBaseMs: 2, retryMaxMs: 10, ...options }, log)
  return { writer, store, spill, dir }
}

const entry = (i: number) => makeEntry({ at: Date.UTC(2026, 10, 24) + i, data: { error_message: `entry ${i}` } })

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(5)
  }
}

describe('transient errors', () => {
  test('full disk, busy database, refused connection are transient; an unknown error is not', () => {
    for (const err of [
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      new Error('SQLITE_FULL: database or disk is full'),
      new Error('disk I/O error'),
      new Error('database is locked'),
      Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' }),
      Object.assign(new Error('i/o error'), { code: 'EIO' }),
      Object.assign(new Error('Connection refused'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('could not extend file'), { errno: '53100' }),
    ])
      expect(isTransientWriteError(err)).toBe(true)
    for (const err of [new Error('cannot store this entry'), new Error('NOT NULL constraint failed: audit_log.id'), new TypeError('x is not a function')])
      expect(isTransientWriteError(err)).toBe(false)
  })
})

describe('a disk that fills and gets space back', () => {
  test('the database fails with SQLITE_FULL (some single writes succeed): nothing is dead-lettered, every entry is stored after recovery', async () => {
    const { writer, store, dir } = setup()
    store.full = true
    const all = Array.from({ length: 400 }, (_, i) => entry(i))
    for (const e of all) {
      writer.record(e)
      if (e === all[200]) await Bun.sleep(50) // let retries (and the one-by-one path) run while the disk is full
    }
    await Bun.sleep(100)
    expect(writer.stats().batch_failures).toBeGreaterThan(3)
    store.full = false
    await until(() => store.rows.size === all.length)
    await writer.drain()
    expect(writer.stats()).toMatchObject({ failed: 0, lost: 0, held: 0 })
    expect(existsSync(join(dir, 'audit-dead-letter.jsonl'))).toBe(false)
  })

  test('neither the database nor the spill folder takes writes: entries are held in memory, /ready sees it, and all are stored once space returns', async () => {
    const { writer, store, spill, dir } = setup({ capacity: 20 })
    store.full = true
    store.acceptEvery = Number.POSITIVE_INFINITY
    spill.full = true
    const all = Array.from({ length: 300 }, (_, i) => entry(i))
    for (const e of all) writer.record(e)
    await Bun.sleep(50)
    const during = writer.stats()
    expect(during.state).toBe('holding')
    expect(during.held).toBe(280)
    expect(during.lost).toBe(0)

    spill.full = false // the spill folder recovers first: held entries move there
    await until(() => writer.stats().held === 0)
    expect(writer.stats().state).toBe('spilling')
    store.full = false
    await until(() => store.rows.size === all.length)
    await writer.drain()
    expect(writer.stats()).toMatchObject({ failed: 0, lost: 0, held: 0, spill_files: 0, state: 'ok' })
    expect(existsSync(join(dir, 'audit-dead-letter.jsonl'))).toBe(false)
  })

  test('past the memory bound an entry is lost: counted, logged at once with its id, and the state says so', async () => {
    const { logger, errors } = recordingLogger()
    const { writer, store, spill } = setup({ capacity: 5, memoryMaxBytes: 4096 }, logger)
    store.full = true
    store.acceptEvery = Number.POSITIVE_INFINITY
    spill.full = true
    const all = Array.from({ length: 60 }, (_, i) => entry(i))
    for (const e of all) writer.record(e)
    const s = writer.stats()
    expect(s.lost).toBeGreaterThan(0)
    expect(s.held_bytes).toBeLessThanOrEqual(4096)
    expect(s.queue_depth + s.held + s.lost).toBe(all.length)
    expect(s.state).toBe('losing')
    const lostIds = errors.filter((e) => e.msg.startsWith('audit entries lost')).flatMap((e) => e.obj.ids as string[])
    expect(lostIds.length).toBe(s.lost)
    expect(lostIds).toContain(all.at(-1)!.id)

    store.full = false
    spill.full = false
    await until(() => store.rows.size === all.length - s.lost)
    await writer.drain()
    expect([...store.rows.keys()].some((id) => lostIds.includes(id))).toBe(false)
  })
})

describe('usage records on a full disk (the same writer as audit entries)', () => {
  const usage = (i: number) => ({ id: `u${i}`, ts: i }) as UsageRecord

  function usageSetup(log: Logger = silentLogger) {
    const dir = mkdtempSync(join(tmpdir(), 'usage-full-disk-'))
    dirs.push(dir)
    const stored = new Set<string>()
    const db = { full: true }
    const spill = new FullSpill<UsageRecord>(dir, usageSpillFormat)
    const batches = {
      async writeBatch(records: readonly UsageRecord[]) {
        if (db.full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
        for (const r of records) stored.add(r.id)
      },
    }
    return { writer: new UsageWriter(batches, log, 100, spill), stored, db, spill, dir }
  }
  /** Past the queue (100) and what memory may hold (200,000 records). */
  const OVER_THE_BOUND = 200_000 + 100 + 30

  test('past the queue, records spill to their own files and are replayed when the database takes writes again', async () => {
    const { writer, stored, db, dir } = usageSetup()
    for (let i = 0; i < 130; i++) writer.record(usage(i))
    await writer.flush()
    expect(writer.stats()).toMatchObject({ queued: 100, spilled: 30, lost: 0, rejected: 0, state: 'spilling' })
    expect(readdirSync(dir).some((f) => f.startsWith('usage-spill'))).toBe(true)
    expect(readdirSync(dir).some((f) => f.startsWith('audit-spill'))).toBe(false)
    db.full = false
    await writer.drain()
    expect(stored.size).toBe(130)
    expect(writer.stats()).toMatchObject({ queued: 0, written: 130, replayed: 30, lost: 0, spill_files: 0 })
  })

  test('spilled records survive a restart: a new writer on the same folder replays them', async () => {
    const { writer, db, dir } = usageSetup()
    for (let i = 0; i < 130; i++) writer.record(usage(i))
    await writer.drain(50) // the database is still full: everything left is spilled
    expect(writer.stats()).toMatchObject({ queued: 0, lost: 0 })
    db.full = false
    const stored = new Set<string>()
    const next = new UsageWriter(
      {
        async writeBatch(records) {
          for (const r of records) stored.add(r.id)
        },
      },
      silentLogger,
      100,
      new SpillFiles(dir, usageSpillFormat),
    )
    next.start()
    await until(() => stored.size === 130)
    await next.drain()
  })

  test('when the spill folder refuses writes too, records are held up to the bound; past it each is counted and logged at once', async () => {
    const { logger, errors } = recordingLogger()
    const { writer, stored, db, spill } = usageSetup(logger)
    spill.full = true
    for (let i = 0; i < OVER_THE_BOUND; i++) writer.record(usage(i))
    await writer.flush()
    expect(writer.stats()).toMatchObject({ queued: 100, held: 200_000, lost: 30, rejected: 0, losing: true })
    expect(errors.some((e) => e.msg.startsWith('usage records lost'))).toBe(true)
    db.full = false
    spill.full = false
    await writer.drain()
    expect(stored.size).toBe(OVER_THE_BOUND - 30)
    expect(writer.stats()).toMatchObject({ queued: 0, held: 0, written: OVER_THE_BOUND - 30, rejected: 0, lost: 30 })
  })
})
