/**
 * PostgreSQL goes away under load and comes back: the replica keeps answering from its snapshots (a known key
 * still authenticates), /ready says `degraded`, an admin write is a clear 503, and afterwards every answered
 * request has its audit entry (kept in the writer's queue or spilled meanwhile, then written).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { postgresAvailable, startPostgres, type RunningPostgres } from '../helpers/postgres-server.ts'

const MASTER = 'master-key-for-outage-0123456789abcd'
let pg: RunningPostgres
let mock: MockUpstream
let gw: GatewayProcess

beforeAll(async () => {
  if (!postgresAvailable()) return
  pg = await startPostgres() // a cluster of its own: this test stops it
  mock = startMockOpenAI()
  gw = await spawnGateway({ DATABASE_URL: await pg.freshDatabase(), GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'sk-up', OPENAI_BASE_URL: mock.url, LOG_LEVEL: 'warn' })
}, 60_000)
afterAll(async () => {
  await gw?.stop()
  mock?.stop()
  await pg?.destroy()
})

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${gw.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' } })

describe.skipIf(!postgresAvailable())('PostgreSQL outage', () => {
  test('stopped under load and started again: requests keep being answered and every answer has its audit entry', async () => {
    const created = (await (await admin('/keys', { method: 'POST', body: JSON.stringify({ name: 'during-outage' }) })).json()) as { key: string }
    const session = `outage-${crypto.randomUUID()}`
    let answered = 0
    let ok = 0
    let stop = false
    const worker = async () => {
      // Bounded: at most 400 requests per worker, and the loop ends when the scenario does.
      for (let i = 0; i < 400 && !stop; i++) {
        try {
          const res = await fetch(`${gw.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json', 'x-session-id': session },
            body: JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: `n${i}` }] }),
          })
          await res.text()
          answered++
          if (res.status === 200) ok++
        } catch {
          // not answered: no entry expected
        }
        await Bun.sleep(5)
      }
    }
    const load = Promise.all([worker(), worker(), worker()])
    await Bun.sleep(300)
    await pg.stop()
    const okBefore = ok
    await Bun.sleep(2_500)
    // While it is down: the key still works, /ready is degraded (200), an admin write is a 503.
    expect(ok).toBeGreaterThan(okBefore)
    const ready = await fetch(`${gw.url}/ready`, { headers: { authorization: `Bearer ${MASTER}` } })
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: 'degraded', store: { backend: 'postgres', reachable: false } })
    const write = await admin('/keys', { method: 'POST', body: JSON.stringify({ name: 'refused' }) })
    expect(write.status).toBe(503)
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('store_unavailable')
    await pg.start()
    await Bun.sleep(500)
    stop = true
    await load
    expect(answered).toBeGreaterThan(50)
    const deadline = Date.now() + 30_000
    let stored = -1
    while (Date.now() < deadline) {
      const res = await admin(`/audit/log?session_id=${session}&limit=1`)
      if (res.status === 200) stored = ((await res.json()) as { total: number }).total
      if (stored === answered) break
      await Bun.sleep(200)
    }
    if (stored !== answered) console.log(await (await admin('/audit/writer-stats')).text())
    expect(stored).toBe(answered)
    expect(((await (await fetch(`${gw.url}/ready`)).json()) as { status: string }).status).toBe('ready')
  }, 90_000)
})
