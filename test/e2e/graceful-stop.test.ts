/**
 * Graceful stop has a deadline (issue #17 defect 7): after SIGTERM, requests still running when the drain
 * deadline passes end with a well-formed 503 (a stream with its error frame), their audit entries are stored, and
 * the process exits.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { spawnGateway } from '../helpers/gateway-process.ts'
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts'

const MASTER = 'master-key-graceful-stop-0123456789abcdef'
let upstream: FaultUpstream

beforeAll(() => {
  upstream = startFaultUpstream()
})
afterAll(() => upstream.stop())

test('SIGTERM with a hung upstream and a trickling stream: both end at the drain deadline, are audited, the process exits', async () => {
  const gw = await spawnGateway({
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: 'sk-drain-upstream-00000000000000',
    OPENAI_BASE_URL: upstream.url,
    GATEWAY_DRAIN_TIMEOUT_SECONDS: '1',
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '600000',
  })
  const post = (body: Record<string, unknown>) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
    })
  const hung = post({ model: 'openai/hang' }).then(async (r) => ({ status: r.status, body: await r.text() }))
  const trickle = post({ model: 'openai/trickle', stream: true, metadata: { every_ms: '100' } }).then(async (r) => ({ status: r.status, body: await r.text() }))
  await Bun.sleep(300)
  const started = Date.now()
  gw.proc.kill('SIGTERM')
  const [a, b] = await Promise.all([hung, trickle])
  expect(await gw.proc.exited).toBe(0)
  expect(Date.now() - started).toBeLessThan(6000)
  expect(a.status).toBe(503)
  expect(JSON.parse(a.body).error.code).toBe('gateway_shutting_down')
  expect(b.status).toBe(200)
  expect(b.body).toContain('gateway_shutting_down')
  const db = new Database(gw.dbPath, { readonly: true })
  const rows = db.query<{ status_code: number }, []>("SELECT status_code FROM audit_log WHERE path = '/v1/chat/completions'").all()
  db.close()
  expect(rows.map((r) => r.status_code).sort()).toEqual([200, 503])
}, 30_000)
