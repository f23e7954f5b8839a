/**
 * Workflows switch features per request scope and change without a restart; failover walks three upstreams
 * (one answering 503, one timing out, one answering) and honours Retry-After.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { auditAdmin } from '../helpers/audit-admin.ts'

const MASTER = 'master-key-for-tests-0123456789abcdef'
let one: MockUpstream
let two: MockUpstream
let three: MockUpstream
let gw: RunningGateway
let client: OpenAI
const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${gw.url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', ...(init.headers ?? {}) } })

beforeAll(async () => {
  one = startMockOpenAI()
  two = startMockOpenAI()
  three = startMockOpenAI()
  const file = writeGatewayYaml(`
providers:
  one: { type: openai, api_key: k1, base_url: "${one.url}" }
  two: { type: groq, api_key: k2, base_url: "${two.url}" }
  three: { type: mistral, api_key: k3, base_url: "${three.url}" }
workflows:
  - name: default
    features: { failover: true }
    plugins:
      failover:
        max_retries: 1
        initial_backoff_ms: 5
        targets:
          one/error-503: [two/slow-first-byte, three/gpt-4o]
`)
  gw = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER, UPSTREAM_TTFB_TIMEOUT_MS: '150' })
  client = new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 })
})
afterAll(async () => {
  await gw.stop()
  for (const m of [one, two, three]) m.stop()
})

const messages = [{ role: 'user' as const, content: 'echo:made it' }]
const count = (m: MockUpstream, model: string) => m.requests.filter((r) => r.body?.model === model).length

describe('failover', () => {
  test('503, then a timeout, then an answer: the third upstream answers, and the audit entry shows every attempt', async () => {
    const { data: res, response } = await client.chat.completions.create({ model: 'one/error-503', messages, metadata: { delay_ms: '1000' } }).withResponse()
    expect(res.choices[0]!.message.content).toBe('made it')
    expect(count(one, 'error-503')).toBe(2)
    expect(count(two, 'slow-first-byte')).toBe(2)
    expect(count(three, 'gpt-4o')).toBe(1)

    const entry = await auditAdmin(gw.url, MASTER).entryFor(response.headers.get('x-request-id')!)
    const attempts = entry.data.attempts!.map((a) => [a.seq, a.kind, `${a.provider_name}/${a.model}`, a.status_code, a.success, a.error_code ?? null])
    expect(attempts).toEqual([
      [1, 'primary', 'one/error-503', 503, false, 'upstream_http_503'],
      [2, 'retry', 'one/error-503', 503, false, 'upstream_http_503'],
      [3, 'failover', 'two/slow-first-byte', 504, false, 'upstream_timeout'],
      [4, 'retry', 'two/slow-first-byte', 504, false, 'upstream_timeout'],
      [5, 'failover', 'three/gpt-4o', 200, true, null],
    ])
    expect(entry.data.failover).toEqual({ target_model: 'three/gpt-4o' })
    expect(entry).toMatchObject({ requested_model: 'one/error-503', provider_name: 'three', status_code: 200 })
    expect(entry.data.workflow_features).toMatchObject({ failover: true, audit: true })
  })

  test('a stream fails over before its first byte reaches the client', async () => {
    const stream = client.chat.completions.stream({ model: 'one/error-503', messages, metadata: { delay_ms: '1000' } })
    const final = await stream.finalChatCompletion()
    expect(final.choices[0]!.message.content).toBe('made it')
  })

  test('Retry-After is honoured between retries', async () => {
    const started = performance.now()
    const res = await client.chat.completions.create({ model: 'one/flaky', messages, metadata: { key: 'ra-1', failures: '1', retry_after_ms: '200' } })
    expect(performance.now() - started).toBeGreaterThanOrEqual(190)
    expect(res.choices[0]!.message.content).toBe('answered after 1 failures')
  })
})

describe('workflows', () => {
  test('the declared default is listed with its version; the plugin catalogue is served', async () => {
    const list = (await (await admin('/workflows')).json()) as { data: { name: string; version: number; features: Record<string, boolean> }[] }
    const def = list.data.find((w) => w.name === 'default')!
    expect(def.features).toMatchObject({ failover: true, audit: true, usage: true })
    const plugins = (await (await admin('/plugins')).json()) as { data: { id: string; config_schema: unknown }[] }
    expect(plugins.data.map((p) => p.id)).toContain('failover')
  })

  test('a scoped workflow wins for its model, applies at once, and keeps its history; old entries keep their snapshot', async () => {
    const audit = auditAdmin(gw.url, MASTER)
    const earlier = await client.chat.completions
      .create({ model: 'one/error-503', messages })
      .withResponse()
      .catch((e) => e)
    const earlierId = (earlier.headers ?? earlier.response.headers).get('x-request-id')
    const earlierEntry = await audit.entryFor(earlierId)
    const before = count(one, 'error-503')
    const created = await admin('/workflows', {
      method: 'POST',
      body: JSON.stringify({ name: 'no-failover-for-503', scope: { model: 'one/error-503' }, features: { failover: false } }),
    })
    expect(created.status).toBe(201)
    const wf = (await created.json()) as { id: string; version: number; version_id: string }
    expect(wf.version).toBe(1)
    const err = await client.chat.completions.create({ model: 'one/error-503', messages }).catch((e) => e)
    expect(err.status).toBe(503)
    expect(count(one, 'error-503') - before).toBe(1)

    const same = await admin('/workflows', {
      method: 'POST',
      body: JSON.stringify({ name: 'no-failover-for-503', scope: { model: 'one/error-503' }, features: { failover: false } }),
    })
    expect(same.status).toBe(200)
    const changed = (await (
      await admin('/workflows', { method: 'POST', body: JSON.stringify({ name: 'no-failover-for-503', scope: { model: 'one/error-503' }, features: { failover: true } }) })
    ).json()) as { id: string; version: number }
    expect(changed).toMatchObject({ id: wf.id, version: 2 })
    const history = (await (await admin(`/workflows/${wf.id}`)).json()) as { versions: { version: number; active: boolean }[] }
    expect(history.versions.map((v) => [v.version, v.active])).toEqual([
      [2, true],
      [1, false],
    ])

    const changedEntry = await audit.entryFor(err.headers.get('x-request-id'))
    expect(changedEntry.workflow_version_id).toBe(wf.version_id)
    expect(changedEntry.data.workflow_features).toMatchObject({ failover: false })
    const again = await audit.detail(earlierEntry.id)
    expect(again.workflow_version_id).toBe(earlierEntry.workflow_version_id)
    expect(again.workflow_version_id).not.toBe(wf.version_id)
    expect(again.data.workflow_features).toEqual(earlierEntry.data.workflow_features)

    expect((await admin(`/workflows/${wf.id}/deactivate`, { method: 'POST' })).status).toBe(200)
    const list = (await (await admin('/workflows')).json()) as { data: { id: string }[] }
    expect(list.data.map((w) => w.id)).not.toContain(wf.id)
  })

  test('invalid definitions are rejected with the field named', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'Bad Name' }, 'name'],
      [{ name: 'x', features: { caching: true } }, 'features'],
      [{ name: 'x', plugins: { failover: { max_retries: -1 } } }, 'plugins.failover.max_retries'],
      [{ name: 'x', plugins: { nosuch: {} } }, 'plugins.nosuch'],
      [{ name: 'x', scope: { user_path: 'no-slash' } }, 'scope.user_path'],
    ]
    for (const [body, param] of cases) {
      const res = await admin('/workflows', { method: 'POST', body: JSON.stringify(body) })
      expect(res.status).toBe(400)
      const { error } = (await res.json()) as { error: { param: string; type: string } }
      expect(error.param).toBe(param)
      expect(error.type).toBe('invalid_request_error')
    }
    expect((await admin('/workflows/wf_missing/deactivate', { method: 'POST' })).status).toBe(404)
  })
})
