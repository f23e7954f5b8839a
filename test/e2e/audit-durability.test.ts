/**
 * Nothing is lost: SIGTERM under load drains the queue (answered requests == stored entries), a full queue
 * spills to disk and is replayed, a restart finds what the previous process queued, and a hard kill loses at most
 * what was in memory: under load with the default settings, only requests answered in about the last flush
 * interval before the SIGKILL (docs/audit.md, "Hard kill"). The SIGTERM and SIGKILL cases run the real entry point (`bun src/main.ts`) as a child.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeEntry, seedAudit } from '../helpers/audit-entries.ts'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { startGateway } from '../helpers/gateway.ts'
import { spawnGateway as spawnGatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-durability'
let mock: MockUpstream

beforeAll(() => {
  mock = startMockOpenAI()
})
afterAll(() => mock.stop())

/** Every gateway here: the master key, and OpenAI served by the mock upstream. */
const baseEnv = () => ({ GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'sk-up', OPENAI_BASE_URL: mock.url })

/** The real entry point as a child process; `env` on top of the base. */
const spawnGateway = (dbPath: string, env: Record<string, string> = {}) => spawnGatewayProcess({ ...baseEnv(), ...env }, dbPath)

function storedRequestIds(dbPath: string): Set<string> {
  const db = new Database(dbPath, { readonly: true })
  try {
    return new Set(
      db
        .query<{ request_id: string }, []>("SELECT request_id FROM audit_log WHERE path LIKE '/v1/%'")
        .all()
        .map((r) => r.request_id),
    )
  } finally {
    db.close()
  }
}

const loadAverage = () => loadavg()[0]!.toFixed(1)

function storedEntries(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true })
  try {
    return db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM audit_log WHERE path LIKE '/v1/%'").get()!.n
  } finally {
    db.close()
  }
}

const tmpDb = () => join(mkdtempSync(join(tmpdir(), 'gw-audit-durable-')), 'gateway.db')

/** One request; true when an HTTP answer came back in full (whatever its status). */
async function answered(url: string, body: Record<string, unknown>): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    await res.text()
    return true
  } catch {
    return false
  }
}

describe('SIGTERM under load', () => {
  test('every answered request has its entry after a graceful stop', async () => {
    // The queue is never flushed on its own here: every entry must come from the shutdown drain.
    const child = await spawnGateway(tmpDb(), { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '600000', LOGGING_AUDIT_BATCH_SIZE: '10000' })
    const kinds = [
      { model: 'openai/slow-stream', stream: true, messages: [{ role: 'user', content: 'x' }], metadata: { delay_ms: '30' } },
      { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] },
      { model: 'openai/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'x' }] },
      { model: 'openai/error-429', messages: [{ role: 'user', content: 'x' }] },
      { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] },
    ]
    const calls: Promise<boolean>[] = []
    for (let i = 0; i < 200; i++) calls.push(answered(child.url, kinds[i % kinds.length]!))
    await Bun.sleep(150)
    child.proc.kill('SIGTERM')
    // Late arrivals during shutdown: answered or refused, never answered without an entry.
    for (let i = 0; i < 50; i++) calls.push(answered(child.url, kinds[1]!))
    const results = await Promise.all(calls)
    expect(await child.proc.exited).toBe(0)
    const answeredCount = results.filter(Boolean).length
    // On a loaded machine a few of the first 200 may not have connected before SIGTERM; they are refused, not lost.
    expect(answeredCount).toBeGreaterThanOrEqual(150)
    expect(storedEntries(child.dbPath)).toBe(answeredCount)
  }, 30_000)
})

describe('hard kill', () => {
  test('spilled entries survive SIGKILL and are stored at the next start; only the in-memory queue is lost', async () => {
    const dbPath = tmpDb()
    const child = await spawnGateway(dbPath, { LOGGING_AUDIT_QUEUE_SIZE: '10', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '600000', LOGGING_AUDIT_BATCH_SIZE: '10000' })
    for (let i = 0; i < 50; i++) expect(await answered(child.url, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] })).toBe(true)
    const stats = await auditAdmin(child.url, MASTER).writerStats()
    expect(stats).toMatchObject({ queue_depth: 10, spilled: 40, written: 0 })
    child.proc.kill('SIGKILL')
    await child.proc.exited
    expect(storedEntries(dbPath)).toBe(0)
    expect(readdirSync(`${dbPath}.audit-spill`)).toContain('audit-spill.jsonl')

    const next = await spawnGateway(dbPath, { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
    const admin = auditAdmin(next.url, MASTER)
    await admin.eventually(
      () => admin.writerStats(),
      (s) => s.replayed === 40 && s.spill_files === 0,
    )
    next.proc.kill('SIGTERM')
    await next.proc.exited
    expect(storedEntries(dbPath)).toBe(40) // 50 answered − the 10 that were only in memory
  }, 30_000)
})

describe('SIGKILL under load', () => {
  test('with the default queue settings, only requests answered in the last flush interval or so lose their entry', async () => {
    const dbPath = tmpDb()
    // Default audit settings: flush every 200 ms or at 1,000 entries, queue of 10,000 (SIGKILL_FLUSH_MS measures
    // another LOGGING_AUDIT_FLUSH_INTERVAL_MS).
    const child = await spawnGateway(dbPath, process.env.SIGKILL_FLUSH_MS ? { LOGGING_AUDIT_FLUSH_INTERVAL_MS: process.env.SIGKILL_FLUSH_MS } : {})
    const answeredAt = new Map<string, number>()
    const started = Date.now()
    let stop = false
    const worker = async () => {
      for (let i = 0; !stop && i < 5000; i++) {
        const id = crypto.randomUUID()
        try {
          const res = await fetch(`${child.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'x-request-id': id },
            body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
          })
          await res.text()
          answeredAt.set(id, Date.now())
        } catch {
          return // the process is gone
        }
      }
    }
    const workers = Array.from({ length: 16 }, worker)
    await Bun.sleep(2000)
    const killedAt = Date.now()
    child.proc.kill('SIGKILL')
    stop = true
    await Promise.all(workers)
    await child.proc.exited

    // A restart replays whatever was spilled; what was only in memory is gone.
    const next = await spawnGateway(dbPath, { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
    next.proc.kill('SIGTERM')
    await next.proc.exited
    const stored = storedRequestIds(dbPath)
    const lost = [...answeredAt].filter(([id]) => !stored.has(id))
    const rate = answeredAt.size / ((killedAt - started) / 1000)
    const oldestLostMs = lost.length ? killedAt - Math.min(...lost.map(([, at]) => at)) : 0
    console.log(
      `audit SIGKILL under load: ${answeredAt.size} answered in ${killedAt - started} ms (${Math.round(rate)}/s, load average ${loadAverage()}); ${lost.length} answered without an entry (${((100 * lost.length) / answeredAt.size).toFixed(2)} %), the oldest answered ${oldestLostMs} ms before the kill`,
    )
    expect(answeredAt.size).toBeGreaterThan(100)
    // The bound of the design: entries wait in memory for at most one flush interval (200 ms) plus the commit of
    // the batch in progress (longer on a loaded machine: 651 ms seen at a load average of 14.5 on 2 cores). Nothing
    // answered earlier may be missing.
    expect(oldestLostMs).toBeLessThan(2000)
  }, 30_000)
})

describe('in-process', () => {
  test('a full queue spills to disk without failing requests, and every entry is stored in the end', async () => {
    const gw = await startGateway({
      ...baseEnv(),
      LOGGING_AUDIT_QUEUE_SIZE: '2',
      LOGGING_AUDIT_BATCH_SIZE: '1000',
      LOGGING_AUDIT_FLUSH_INTERVAL_MS: '200',
    })
    const admin = auditAdmin(gw.url, MASTER)
    const client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })),
    )
    expect(answers).toHaveLength(100)
    expect((await admin.writerStats()).spilled).toBeGreaterThanOrEqual(50)
    const stats = await admin.eventually(
      () => admin.writerStats(),
      (s) => s.written === 100 && s.spill_files === 0,
    )
    expect(stats).toMatchObject({ replayed: stats.spilled, failed: 0, duplicates: 0 })
    const page = await admin.list({ limit: '100' })
    expect(page.total).toBe(100)
    expect(new Set(page.entries.map((e) => e.id)).size).toBe(100)
    await gw.stop()
  })

  test('a restart finds the entries the previous gateway still had queued', async () => {
    const dbPath = tmpDb()
    const env = { ...baseEnv(), GATEWAY_DB_PATH: dbPath }
    const first = await startGateway({ ...env, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '600000', LOGGING_AUDIT_BATCH_SIZE: '10000' })
    const client = new OpenAI({ apiKey: MASTER, baseURL: first.baseURL, maxRetries: 0 })
    for (let i = 0; i < 20; i++) await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    expect(await auditAdmin(first.url, MASTER).writerStats()).toMatchObject({ queue_depth: 20, written: 0 })
    await first.stop()
    const second = await startGateway(env)
    expect((await auditAdmin(second.url, MASTER).list({})).total).toBe(20)
    await second.stop()
    expect(existsSync(`${dbPath}.audit-spill`)).toBe(false)
  })

  test('retention deletes entries older than LOGGING_RETENTION_DAYS', async () => {
    const gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, LOGGING_RETENTION_DAYS: '7' })
    const day = 86_400_000
    const old = [makeEntry({ at: Date.now() - 10 * day }), makeEntry({ at: Date.now() - 8 * day })]
    const recent = makeEntry({ at: Date.now() - day })
    await seedAudit(gw.gateway.auditLog.writer, [...old, recent])
    expect(gw.gateway.auditLog.retention.enabled).toBe(true)
    expect(await gw.gateway.auditLog.retention.runOnce()).toBe(2)
    const page = await auditAdmin(gw.url, MASTER).list({ days: '30' })
    expect(page.entries.map((e) => e.id)).toEqual([recent.id])
    await gw.stop()
  })
})
