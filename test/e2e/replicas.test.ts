/**
 * Several replicas on one PostgreSQL and one Redis, as real processes (`bun src/main.ts`, and the compiled binary):
 * what one replica does, the other sees. A key created on A works on B; revoked on A, refused on B within a second
 * (measured); a workflow saved on A applies on B; a budget holds across both; audit entries and usage from both
 * are read back through either; retention runs on one replica only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAuditEntry } from '../../src/audit/record.ts'
import { PostgresAuditStore } from '../../src/stores/postgres/audit-log.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { applyPgMigrations, connectPostgres } from '../../src/stores/postgres/client.ts'
import { postgresMigrations } from '../../src/stores/postgres/migrations.ts'
import { ensurePartitions } from '../../src/stores/postgres/partitions.ts'
import { makeEntry } from '../helpers/audit-entries.ts'
import { ROOT, spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'
import { redisAvailable, startRedis, type RunningRedis } from '../helpers/redis-server.ts'
import { writeGatewayYaml } from '../helpers/gateway.ts'

const MASTER = 'master-key-for-replicas-0123456789abcd'
const DAY = 86_400_000
const available = postgresAvailable() && redisAvailable()
let mock: MockUpstream
let redis: RunningRedis
const running: GatewayProcess[] = []

beforeAll(async () => {
  if (!available) return
  mock = startMockOpenAI()
  redis = await startRedis()
}, 60_000)
afterAll(async () => {
  for (const g of running) await g.stop()
  mock?.stop()
  await redis?.stop()
})

const admin = (g: GatewayProcess, path: string, init: RequestInit = {}) =>
  fetch(`${g.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' } })
const chat = (g: GatewayProcess, key: string, extra: object = {}, session?: string) =>
  fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) },
    body: JSON.stringify({ model: 'openai/gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  })

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

async function twoReplicas(
  command?: (dir: string) => string[],
  before?: (databaseUrl: string) => Promise<void>,
): Promise<{ a: GatewayProcess; b: GatewayProcess; databaseUrl: string }> {
  const databaseUrl = await (await sharedPostgres()).freshDatabase()
  await before?.(databaseUrl)
  const yaml = writeGatewayYaml('workflows:\n  - name: default\n    features: { budget: true, usage: true }\n')
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: 'sk-up',
    OPENAI_BASE_URL: mock.url,
    GATEWAY_CONFIG: yaml,
    LOGGING_RETENTION_DAYS: '1',
    LOG_LEVEL: 'info',
  }
  const dirs = [mkdtempSync(join(tmpdir(), 'gw-replica-')), mkdtempSync(join(tmpdir(), 'gw-replica-'))]
  // Started together: migrations and the declared workflow are applied once, under the advisory locks.
  const [a, b] = await Promise.all(dirs.map((dir) => spawnGateway(env, undefined, command ? { command: command(dir), cwd: dir } : {})))
  running.push(a!, b!)
  return { a: a!, b: b!, databaseUrl }
}

async function newKey(g: GatewayProcess, name: string): Promise<{ id: string; key: string }> {
  const res = await admin(g, '/keys', { method: 'POST', body: JSON.stringify({ name }) })
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; key: string }
}

/** Revokes on A and measures how long until B refuses the key; B is polled every few milliseconds. */
async function revocationDelayMs(a: GatewayProcess, b: GatewayProcess, key: { id: string; key: string }): Promise<number> {
  expect((await chat(b, key.key)).status).toBe(200)
  const start = performance.now()
  expect((await admin(a, `/keys/${key.id}/revoke`, { method: 'POST' })).status).toBe(200)
  await until('B to refuse the revoked key', async () => (await chat(b, key.key)).status === 401, 10_000)
  return performance.now() - start
}

describe.skipIf(!available)('two replicas on one PostgreSQL and one Redis', () => {
  let a: GatewayProcess
  let b: GatewayProcess
  const old = Date.now() - 4 * DAY

  beforeAll(async () => {
    ;({ a, b } = await twoReplicas(undefined, async (databaseUrl) => {
      // Entries past the retention window, written before the replicas start (their first retention run is 5 s later).
      const sql = connectPostgres({ url: databaseUrl, poolSize: 2, tls: undefined })
      await applyPgMigrations(sql, postgresMigrations, silentLogger)
      await ensurePartitions(sql, old, old) // partitions of their own weeks
      const entries = Array.from({ length: 30 }, (_, i) => makeEntry({ at: old + i }))
      expect(await new PostgresAuditStore(sql).writeBatch(entries.map((e) => encodeAuditEntry(e)))).toBe(30)
      // And older ones in the DEFAULT partition, deleted row by row in batches of 1000: long enough that two
      // replicas starting together would overlap without the lease.
      const older = Array.from({ length: 4000 }, (_, i) => makeEntry({ at: old - 3 * DAY + i }))
      for (let i = 0; i < older.length; i += 1000) await new PostgresAuditStore(sql).writeBatch(older.slice(i, i + 1000).map((e) => encodeAuditEntry(e)))
      await sql.close()
    }))
  }, 90_000)

  test('a key created on A works on B at once; revoked on A, B refuses it within a second', async () => {
    const key = await newKey(a, 'shared')
    const first = await until('B to accept the new key', async () => (await chat(b, key.key)).status === 200 && true, 1_000)
    expect(first).toBe(true)
    const ms = await revocationDelayMs(a, b, key)
    console.log(`revocation reached the other replica in ${ms.toFixed(0)} ms`)
    expect(ms).toBeLessThan(1_000)
    // ...and A refuses it too.
    expect((await chat(a, key.key)).status).toBe(401)
  }, 30_000)

  test('a key created on B by an admin key, revoked with its creator on A: B refuses both within a second', async () => {
    const creator = (await (await admin(a, '/keys', { method: 'POST', body: JSON.stringify({ name: 'team admin', role: 'admin', user_path: '/team' }) })).json()) as {
      id: string
      key: string
    }
    const made = await until('B to let the new admin key create a key', async () => {
      const res = await fetch(`${b.url}/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${creator.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'made on B', user_path: '/team/ci' }),
      })
      return res.status === 201 && ((await res.json()) as { key: string })
    })
    expect((await chat(b, made.key)).status).toBe(200)
    const start = performance.now()
    expect((await admin(a, `/keys/${creator.id}/revoke`, { method: 'POST' })).status).toBe(200)
    await until('B to refuse the key its revoked creator made', async () => (await chat(b, made.key)).status === 401, 10_000)
    expect(performance.now() - start).toBeLessThan(1_000)
    expect((await chat(a, made.key)).status).toBe(401)
  }, 30_000)

  test('a workflow saved on A applies to B’s next request', async () => {
    const key = await newKey(a, 'with-prompt')
    const saved = await admin(a, '/workflows', {
      method: 'POST',
      body: JSON.stringify({ name: 'replica-prompt', scope: { key_id: key.id }, plugins: { 'system-prompt': { prompt: 'Answer like a pirate.', mode: 'prepend' } } }),
    })
    expect(saved.status).toBe(201)
    const body = await until(
      'B to apply the workflow',
      async () => {
        mock.requests.length = 0
        expect((await chat(b, key.key)).status).toBe(200)
        const sent = mock.requests.at(-1)?.body
        return JSON.stringify(sent).includes('Answer like a pirate.') ? sent : undefined
      },
      2_000,
    )
    expect(body.messages[0]).toMatchObject({ role: 'system' })
  }, 30_000)

  test('a budget holds across both replicas (spend counted in Redis)', async () => {
    const key = await newKey(a, 'budgeted')
    const created = await admin(a, '/budgets', { method: 'POST', body: JSON.stringify({ scope: { key_id: key.id }, window: 'day', limit_usd: 0.0003 }) })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    await until('B to know the budget', async () => ((await (await admin(b, '/budgets')).json()) as { data: { id: string }[] }).data.some((x) => x.id === id))
    let ok = 0
    let refusedBy: GatewayProcess | undefined
    for (let i = 0; i < 20 && !refusedBy; i++) {
      const g = i % 2 === 0 ? a : b
      const res = await chat(g, key.key)
      if (res.status === 200) ok++
      else {
        expect(res.status).toBe(429)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded')
        refusedBy = g
      }
      await Bun.sleep(30) // let the settled spend reach Redis
    }
    expect(refusedBy).toBeDefined()
    // Two budgets of their own would each allow about as many again.
    expect(ok).toBeLessThanOrEqual(4)
    const other = refusedBy === a ? b : a
    expect((await chat(other, key.key)).status).toBe(429)
  }, 30_000)

  test('audit entries and usage from both replicas are read back through either (the dashboard’s API)', async () => {
    const [keyA, keyB] = [await newKey(a, 'a-key'), await newKey(b, 'b-key')]
    // Answered requests per key, counted as they happen (a key not yet known to the other replica is a 401, unmetered).
    const answered = new Map<string, number>()
    const count = async (g: GatewayProcess, key: { id: string; key: string }, session?: string) => {
      const ok = (await chat(g, key.key, {}, session)).status === 200
      if (ok) answered.set(key.id, (answered.get(key.id) ?? 0) + 1)
      return ok
    }
    await until('both keys known to both', async () => (await count(a, keyB)) && (await count(b, keyA)))
    const sessions = { a: `via-a-${crypto.randomUUID()}`, b: `via-b-${crypto.randomUUID()}` }
    for (let i = 0; i < 3; i++) expect(await count(a, keyA, sessions.a)).toBe(true)
    for (let i = 0; i < 2; i++) expect(await count(b, keyA, sessions.b)).toBe(true)
    for (const reader of [a, b]) {
      for (const [session, count] of [
        [sessions.a, 3],
        [sessions.b, 2],
      ] as const) {
        await until(`every entry of ${session} listed`, async () => ((await (await admin(reader, `/audit/log?session_id=${session}`)).json()) as { total: number }).total === count)
      }
    }
    // Usage: both replicas read the same sums, and they count what each answered.
    const byKey = async (g: GatewayProcess) => ((await (await admin(g, '/usage/breakdown?by=key')).json()) as { data: { key_id: string; requests: number }[] }).data
    for (const reader of [a, b]) {
      await until(
        'usage of both replicas summed',
        async () => {
          const rows = await byKey(reader)
          return rows.find((r) => r.key_id === keyA.id)?.requests === answered.get(keyA.id) && rows.find((r) => r.key_id === keyB.id)?.requests === answered.get(keyB.id)
        },
        15_000,
      )
    }
    const [sumA, sumB] = (await Promise.all([a, b].map(async (g) => (await admin(g, '/usage/summary?days=1')).json()))) as {
      requests: number
      total_tokens: number
      cost_usd: number
    }[]
    expect({ ...sumA, start: 0, end: 0 }).toEqual({ ...sumB!, start: 0, end: 0 })
  }, 30_000)

  test('retention runs on one replica: old entries are deleted once, by one of them', async () => {
    const oldDay = new Date(old).toISOString().slice(0, 10)
    const window = `start_date=${oldDay}&end_date=${oldDay}`
    const olderDay = new Date(old - 3 * DAY).toISOString().slice(0, 10)
    await until('the old entries to be gone', async () => ((await (await admin(b, `/audit/log?${window}`)).json()) as { total: number }).total === 0, 20_000)
    await until(
      'the older entries to be gone',
      async () => ((await (await admin(b, `/audit/log?start_date=${olderDay}&end_date=${olderDay}`)).json()) as { total: number }).total === 0,
      20_000,
    )
    await Bun.sleep(1_000) // both replicas' first retention run (5 s after start-up) has passed
    // The log is buffered: stop both so every line is written.
    await Promise.all([a.stop(), b.stop()])
    await Bun.sleep(100)
    const runs = [a, b].flatMap((g) =>
      g
        .output()
        .split('\n')
        .filter((l) => l.includes('expired audit entries deleted')),
    )
    expect(runs).toHaveLength(1)
    expect(JSON.parse(runs[0]!).deleted).toBe(4030)
  }, 60_000)
})

describe.skipIf(!available)('two replicas of the compiled binary', () => {
  test('keys and revocations cross replicas; audit entries of both are listed by either', async () => {
    const build = Bun.spawnSync(['bun', 'run', 'build'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
    const { a, b } = await twoReplicas((dir) => {
      copyFileSync(join(ROOT, 'dist', 'gateway'), join(dir, 'gateway'))
      return [join(dir, 'gateway')]
    })
    const key = await newKey(a, 'binary')
    await until('B to accept the key', async () => (await chat(b, key.key)).status === 200 && true, 1_000)
    expect(await revocationDelayMs(a, b, key)).toBeLessThan(1_000)
    const session = `binary-${crypto.randomUUID()}`
    expect((await chat(a, MASTER, {}, session)).status).toBe(200)
    expect((await chat(b, MASTER, {}, session)).status).toBe(200)
    for (const reader of [a, b])
      await until('both entries listed', async () => ((await (await admin(reader, `/audit/log?session_id=${session}`)).json()) as { total: number }).total === 2)
  }, 180_000)
})
