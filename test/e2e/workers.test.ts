/**
 * `GATEWAY_WORKERS=2` end to end: the real program (`bun src/main.ts`) as a primary with two worker processes on
 * one port and one SQLite file. Requests go over fresh connections (`connection: close`), so the kernel spreads
 * them over both workers. A key revoked through one worker is refused by all, a rate limit of 10 a minute admits
 * 10 in total, and a killed worker is replaced without a request lost.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { writeGatewayYaml } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { parsePrometheusText, type PromSample } from '../helpers/prometheus-text.ts'

const MASTER = 'master-key-for-worker-tests-0123456789'
let mock: MockUpstream
let primary: Subprocess<'ignore', 'pipe', 'inherit'>
let url: string
let dbPath: string
let output = ''

const freePort = () => {
  const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
  const port = s.port
  s.stop(true)
  return port
}

/** One request on a connection of its own. */
function call(path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return fetch(`${url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${init.key ?? MASTER}`, 'content-type': 'application/json', connection: 'close', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
}
let chats = 0
const chat = (key = MASTER, headers: Record<string, string> = {}) => (
  chats++, call('/v1/chat/completions', { key, headers, body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } })
)

/** Worker pids the primary announced, in order. */
const workerPids = () => [...output.matchAll(/"worker":\d+,"pid":(\d+),"msg":"worker started"/g)].map((m) => Number(m[1]))

function auditEntries(): number {
  const db = new Database(dbPath, { readonly: true })
  try {
    return db.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_log WHERE path = '/v1/chat/completions'").get()!.n
  } finally {
    db.close()
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await Bun.sleep(50)
  }
  throw new Error(`timed out waiting for ${what}; primary output:\n${output.slice(-3000)}`)
}

/** Every process's metrics, gathered by whichever worker the scrape reaches. */
async function scrape(): Promise<PromSample[]> {
  const res = await call('/metrics')
  expect(res.status).toBe(200)
  const families = parsePrometheusText(await res.text())
  return [...families.values()].flatMap((f) => f.samples)
}

/**
 * Waits until both workers' copy of `snapshot` (keys, limits, …) was loaded from the database by a load that
 * started at or after `since` (ms, taken before the admin call that changed it was sent), that is, once the change
 * feed told both of the change. (A load started by chance between sending the call and its commit would pass
 * too early: the snapshots' reconcile timer runs a load of a few ms every 30 s.)
 */
async function bothWorkersReloaded(snapshot: string, since: number) {
  await until(
    `both workers' ${snapshot} reloaded`,
    async () => {
      const loaded = (await scrape()).filter((s) => s.name === 'gateway_snapshot_loaded_timestamp_seconds' && s.labels.snapshot === snapshot)
      return loaded.length === 2 && loaded.every((s) => Number(s.value) * 1000 >= since)
    },
    10_000,
  )
}

beforeAll(async () => {
  mock = startMockOpenAI()
  const dir = mkdtempSync(join(tmpdir(), 'gw-workers-'))
  dbPath = join(dir, 'gateway.db')
  const port = freePort()
  url = `http://127.0.0.1:${port}`
  const config = writeGatewayYaml(`workflows:\n  - name: default\n    features: { audit: true, budget: true, usage: true }\n`)
  primary = Bun.spawn(['bun', join(import.meta.dir, '../../src/main.ts')], {
    cwd: dir,
    env: {
      ...process.env,
      GATEWAY_WORKERS: '2',
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: mock.url,
      GATEWAY_DB_PATH: dbPath,
      GATEWAY_CONFIG: config,
      LOG_LEVEL: 'info',
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  void (async () => {
    for await (const chunk of primary.stdout) output += new TextDecoder().decode(chunk)
  })()
  await until('two workers', () => workerPids().length === 2)
  // Both workers answer: /ready on fresh connections until each pid has been seen ready (the log says listening).
  await until('both workers listening', () => (output.match(/gateway listening/g) ?? []).length >= 2)
  await until('ready', async () => (await call('/ready').catch(() => undefined))?.status === 200)
}, 60_000)

afterAll(async () => {
  primary?.kill('SIGTERM')
  await primary?.exited
  mock?.stop()
})

describe('GATEWAY_WORKERS=2', () => {
  test('two worker processes listen on the one port', async () => {
    const pids = workerPids()
    expect(new Set(pids).size).toBe(2)
    for (const pid of pids) expect(pid).not.toBe(primary.pid)
    const answers = await Promise.all(Array.from({ length: 10 }, () => chat()))
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200))
  })

  test('a key revoked through one worker is refused by every worker', async () => {
    const creating = Date.now()
    const created = await call('/admin/keys', { body: { name: 'short-lived' } })
    expect(created.status).toBe(201)
    const { id, key } = (await created.json()) as { id: string; key: string }
    // The other worker learns of the new key through the change feed, a moment after the admin call returned.
    await bothWorkersReloaded('keys', creating)
    // Twenty requests over fresh connections: both workers have served (and cached) the key.
    for (let i = 0; i < 20; i++) expect((await chat(key)).status).toBe(200)
    const revoking = Date.now()
    expect((await call(`/admin/keys/${id}/revoke`, { method: 'POST' })).status).toBe(200)
    await bothWorkersReloaded('keys', revoking)
    const after = await Promise.all(Array.from({ length: 20 }, () => chat(key)))
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(401))
  })

  test('a rate limit of 10 a minute admits 10 requests across both workers', async () => {
    const { id, key } = (await (await call('/admin/keys', { body: { name: 'limited' } })).json()) as { id: string; key: string }
    // Defined through one worker; the change feed tells the other.
    const limiting = Date.now()
    expect((await call('/admin/rate-limits', { body: { scope: { key_id: id }, requests_per_minute: 10 } })).status).toBe(201)
    await bothWorkersReloaded('limits', limiting)
    const answers = []
    for (let i = 0; i < 30; i++) answers.push((await chat(key)).status)
    expect(answers.filter((s) => s === 200)).toHaveLength(10)
    expect(answers.filter((s) => s === 429)).toHaveLength(20)
  })

  test('/metrics on any worker counts the requests of every worker', async () => {
    const chatRequests = (samples: PromSample[]) =>
      samples.filter((s) => s.name === 'gateway_requests_total' && s.labels.endpoint === 'chat.completions').reduce((n, s) => n + Number(s.value), 0)
    const before = chatRequests(await scrape())
    expect(before).toBe(chats)
    // Twenty fresh connections: the kernel spreads them over both workers.
    for (let i = 0; i < 20; i++) expect((await chat()).status).toBe(200)
    // Each scrape reaches either worker; every one of them sees all requests.
    for (let i = 0; i < 4; i++) {
      const samples = await scrape()
      expect(chatRequests(samples)).toBe(before + 20)
      const memory = samples.filter((s) => s.name === 'process_resident_memory_bytes')
      expect(memory.map((s) => s.labels.worker).sort()).toEqual(['0', '1', 'primary'])
    }
  }, 30_000)

  test('a file uploaded through either worker is served by every worker (one database, one files directory)', async () => {
    const uploads = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const form = new FormData()
        form.append('purpose', 'user_data')
        form.append('file', new File([`file number ${i}`], `${i}.txt`))
        const res = await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, connection: 'close' }, body: form })
        expect(res.status).toBe(200)
        return ((await res.json()) as { id: string }).id
      }),
    )
    // Each file read on fresh connections, which the kernel spreads over both workers.
    const reads = await Promise.all(uploads.flatMap((id, i) => Array.from({ length: 4 }, async () => ({ i, status: (await call(`/v1/files/${id}/content`)).status, id }))))
    expect(reads.filter((r) => r.status !== 200)).toEqual([])
    const texts = await Promise.all(uploads.map(async (id) => (await call(`/v1/files/${id}/content`)).text()))
    expect(texts).toEqual(uploads.map((_, i) => `file number ${i}`))
  })

  test('a killed worker is replaced, and no request is lost meanwhile', async () => {
    // What was answered so far is stored first: a killed process loses the entries still in its queue.
    const answered = chats
    await until('the audit log written', () => auditEntries() === answered)
    const [victim] = workerPids()
    process.kill(victim!, 'SIGKILL')
    // Connections the kernel queued on the dying worker's socket are reset ("those it was serving"); from its exit on
    // every connection goes to a live worker.
    await until('the primary to see the worker exit', () => output.includes('worker exited'))
    const statuses = []
    for (let i = 0; i < 30; i++) statuses.push((await chat()).status)
    expect(statuses).toEqual(Array(30).fill(200))
    await until('a replacement worker', () => workerPids().length === 3)
    expect(workerPids()[2]).not.toBe(victim)
    await until('the replacement listening', () => (output.match(/gateway listening/g) ?? []).length >= 3)
    for (let i = 0; i < 10; i++) expect((await chat()).status).toBe(200)
  }, 60_000)

  test('every answered request has its audit entry in the one database, written by the primary', async () => {
    primary.kill('SIGTERM')
    expect(await primary.exited).toBe(0)
    expect(output).toContain('primary: stopped')
    // Every chat request above was answered (also the refused ones): 10 + 20 + 20 + 30 + 20 + 30 + 10.
    expect(chats).toBe(140)
    expect(auditEntries()).toBe(chats)
  }, 60_000)
})
