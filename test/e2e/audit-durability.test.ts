/**
 * Nothing is lost: SIGTERM under load drains the queue (answered requests == stored entries), a full queue
 * spills to disk and is replayed, a restart finds what the previous process queued, and a hard kill loses at most
 * what was in memory: under load with the default settings, no more than the requests answered in one flush
 * interval plus the commit in progress, and none the writer had reported written (docs/audit.md, "Hard kill").
 * The SIGTERM and SIGKILL cases run the real entry point (`bun src/main.ts`) as a child.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { makeEntry, seedAudit } from '../helpers/audit-entries.ts'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { startGateway } from '../helpers/gateway.ts'
import { spawnGateway as spawnGatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { parsePrometheusText } from '../helpers/prometheus-text.ts'

const MASTER = 'master-key-for-durability-0123456789'
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

/** The audit writer's defaults (src/config/schema.ts): the promise the hard-kill test checks. */
const DEFAULT_FLUSH_MS = 200
/** Concurrent clients of the hard-kill test: at most this many requests are in flight at the kill. */
const CLIENTS = 16

/** The audit batches' commit times in a scrape of /metrics: cumulative counts by bucket bound, in seconds. */
function auditBatchBuckets(metricsText: string): Map<number, number> {
  const histogram = parsePrometheusText(metricsText).get('gateway_store_batch_duration_seconds')
  const buckets = new Map<number, number>()
  for (const s of histogram?.samples ?? [])
    if (s.name.endsWith('_bucket') && s.labels.store === 'audit') buckets.set(s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le), Number(s.value))
  return buckets
}

/**
 * The longest commit between two scrapes, in seconds: the lowest bucket bound that holds every batch committed
 * after `before` (0 when none was).
 */
function longestCommitSeconds(before: Map<number, number>, after: Map<number, number>): number {
  const since = (le: number) => (after.get(le) ?? 0) - (before.get(le) ?? 0)
  const total = since(Number.POSITIVE_INFINITY)
  if (total === 0) return 0
  return [...after.keys()].sort((a, b) => a - b).find((le) => since(le) >= total)!
}

/** The process's event-loop lag in a scrape of /metrics (how late its timers fired since the scrape before), in seconds. */
function eventLoopLagSeconds(metricsText: string): number {
  return Number(/^gateway_event_loop_lag_seconds (\S+)$/m.exec(metricsText)?.[1] ?? 0)
}

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
    // SIGTERM once the gateway has answered some of them while it serves the rest (not after a fixed time: on a
    // loaded machine the requests connect late).
    const admin = auditAdmin(child.url, MASTER)
    const atSigterm = await admin.eventually(
      () => admin.writerStats(),
      (s) => s.recorded >= 50,
      20_000,
    )
    child.proc.kill('SIGTERM')
    // Late arrivals during shutdown: answered or refused, never answered without an entry.
    for (let i = 0; i < 50; i++) calls.push(answered(child.url, kinds[1]!))
    const results = await Promise.all(calls)
    expect(await child.proc.exited).toBe(0)
    const answeredCount = results.filter(Boolean).length
    // Those of the first 200 that had not connected before SIGTERM are refused, not lost.
    expect(answeredCount).toBeGreaterThanOrEqual(atSigterm.recorded)
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
  test('a hard kill loses at most what one flush interval and the commit in progress hold, and nothing the writer had written', async () => {
    const dbPath = tmpDb()
    // The promise checked is the default's (flush every 200 ms, or at 1,000 entries); SIGKILL_FLUSH_MS measures
    // another LOGGING_AUDIT_FLUSH_INTERVAL_MS, and the promise follows it.
    const flushMs = Number(process.env.SIGKILL_FLUSH_MS ?? DEFAULT_FLUSH_MS)
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
    // What the writer says it committed, its batches' commit times and how late the process's timers fire, read
    // while the load runs: those of the second half of the load (the first batches include the write thread's
    // warm-up).
    let written = 0
    let halfway = ''
    let latest = ''
    let longestLagS = 0
    const watcher = async () => {
      while (!stop) {
        try {
          const stats = await auditAdmin(child.url, MASTER).writerStats()
          const scrape = await (await fetch(`${child.url}/metrics`, { headers: { authorization: `Bearer ${MASTER}` } })).text()
          if (stop) return // answered after the kill was sent: not a reading from before it
          written = stats.written
          latest = scrape
          if (!halfway && Date.now() - started >= 1000) halfway = scrape
          if (halfway) longestLagS = Math.max(longestLagS, eventLoopLagSeconds(scrape))
        } catch {
          return
        }
        await Bun.sleep(20)
      }
    }
    const workers = Array.from({ length: CLIENTS }, worker)
    const watching = watcher()
    await Bun.sleep(2000)
    const killedAt = Date.now()
    stop = true
    child.proc.kill('SIGKILL')
    await Promise.all([...workers, watching])
    await child.proc.exited

    // A restart replays whatever was spilled; what was only in memory is gone.
    const next = await spawnGateway(dbPath, { LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
    next.proc.kill('SIGTERM')
    await next.proc.exited
    const stored = storedRequestIds(dbPath)
    const inAnswerOrder = [...answeredAt].sort(([, a], [, b]) => a - b)
    const lost = inAnswerOrder.filter(([id]) => !stored.has(id))
    const rate = answeredAt.size / ((killedAt - started) / 1000)
    const longestCommitS = longestCommitSeconds(auditBatchBuckets(halfway), auditBatchBuckets(latest))
    // The design: an entry waits in memory at most one flush interval (later by as much as the process's timers
    // fire late: a starved event loop), then for its batch's commit, behind at most the batch before it (the
    // longest commit this run saw, rounded up to its histogram bucket). So a kill loses at most what the requests
    // answered in that time, plus those in flight whose entry was not yet queued.
    const windowS = flushMs / 1000 + longestLagS + 2 * longestCommitS
    const promised = Math.ceil(rate * windowS) + CLIENTS
    const oldestLostMs = lost.length ? killedAt - lost[0]![1] : 0
    console.log(
      `audit SIGKILL under load: ${answeredAt.size} answered in ${killedAt - started} ms (${Math.round(rate)}/s, load average ${loadAverage()}); ${lost.length} answered without an entry (${((100 * lost.length) / answeredAt.size).toFixed(2)} %, at most ${promised} promised: ${Math.round(windowS * 1000)} ms = ${flushMs} ms + timers late by ${Math.round(longestLagS * 1000)} ms + 2 × the longest commit ≤ ${Math.round(longestCommitS * 1000)} ms), the oldest answered ${oldestLostMs} ms before the kill; ${written} written before the kill`,
    )
    expect(answeredAt.size).toBeGreaterThan(100)
    expect(lost.length).toBeLessThanOrEqual(promised)
    // Every entry the writer had committed before the kill is kept. The queue is first in, first out, so the
    // first `written` entries queued are stored; in answer order that is all but the requests in flight around it.
    expect(stored.size).toBeGreaterThanOrEqual(written)
    const surelyWritten = inAnswerOrder.slice(0, Math.max(0, written - CLIENTS))
    expect(surelyWritten.filter(([id]) => !stored.has(id))).toEqual([])
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

  test('spilled entries hold their logged headers redacted: no credential reaches a spill file', async () => {
    const dbPath = tmpDb()
    // A long flush interval keeps the spill file unreplayed while it is read.
    const gw = await startGateway({ ...baseEnv(), GATEWAY_DB_PATH: dbPath, LOGGING_LOG_HEADERS: 'true', LOGGING_AUDIT_QUEUE_SIZE: '2', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '600000' })
    const client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
    const secret = 'spill-secret-token-6a1f'
    await Promise.all(
      Array.from({ length: 20 }, () =>
        client.chat.completions.create(
          { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'x-access-token': secret, cookie: `s=${secret}` } },
        ),
      ),
    )
    const spillDir = `${dbPath}.audit-spill`
    const spilled = readdirSync(spillDir)
      .filter((f) => f.startsWith('audit-spill'))
      .map((f) => readFileSync(join(spillDir, f), 'utf8'))
      .join('')
    expect(spilled.split('\n').filter(Boolean).length).toBeGreaterThan(10)
    expect(spilled).toContain('[REDACTED]')
    expect(spilled).not.toContain(secret)
    expect(spilled).not.toContain(MASTER)
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
