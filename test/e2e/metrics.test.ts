/**
 * `GET /metrics` after real requests (plain, streamed, cached, failed over, unknown model, refused), parsed with
 * a Prometheus text-format parser: counts, histograms, bounded labels, audit writer and process metrics, the
 * admin guard and its opt-out, and the `x-gateway-overhead-ms` header.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { parsePrometheusText, type PromFamily, type PromSample } from '../helpers/prometheus-text.ts'

const MASTER = 'master-key-for-metrics-tests-0123456789'
const KEY_ONE = 'sk-one-secret-0123456789abcdef'
const KEY_TWO = 'sk-two-secret-0123456789abcdef'

let one: MockUpstream
let two: MockUpstream
let gw: RunningGateway

const chat = (model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'echo:hello' }], ...extra }),
  })

interface Scrape {
  text: string
  families: Map<string, PromFamily>
  samples: PromSample[]
}

async function scrape(url: string, auth: string | undefined = MASTER): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toStartWith('text/plain; version=0.0.4')
  const text = await res.text()
  const families = parsePrometheusText(text)
  return { text, families, samples: [...families.values()].flatMap((f) => f.samples) }
}

/** The samples of this name whose labels include all of `match`. */
const matching = (s: Scrape, name: string, match: Record<string, string> = {}) =>
  s.samples.filter((m) => m.name === name && Object.entries(match).every(([k, v]) => m.labels[k] === v))
/** The one sample of this name whose labels include `match` (NaN when there is none, an error when several). */
function value(s: Scrape, name: string, match: Record<string, string> = {}): number {
  const found = matching(s, name, match)
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(match)} matches ${found.length} samples`)
  return found.length === 0 ? NaN : Number(found[0]!.value)
}
const sum = (s: Scrape, name: string, match: Record<string, string> = {}) => matching(s, name, match).reduce((total, m) => total + Number(m.value), 0)

beforeAll(async () => {
  one = startMockOpenAI()
  two = startMockOpenAI()
  const file = writeGatewayYaml(`
providers:
  one: { type: openai, api_key: ${KEY_ONE}, base_url: "${one.url}" }
  two: { type: groq, api_key: ${KEY_TWO}, base_url: "${two.url}" }
workflows:
  - name: default
    features: { failover: true, cache: true, usage: true }
    plugins:
      failover:
        max_retries: 1
        initial_backoff_ms: 5
        targets:
          one/error-503: [two/gpt-4o]
`)
  gw = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER })
})
afterAll(async () => {
  await gw.stop()
  one.stop()
  two.stop()
})

describe('/metrics after a few requests', () => {
  let m: Scrape
  const overheads: (string | null)[] = []

  beforeAll(async () => {
    const plain = await chat('one/gpt-4o-mini')
    overheads.push(plain.headers.get('x-gateway-overhead-ms'))
    expect((await plain.json()).choices[0].message.content).toBe('hello')
    const cached = await chat('one/gpt-4o-mini')
    expect(cached.headers.get('x-cache')).toBe('HIT')
    await cached.text()
    // A different body: a cache miss that goes upstream as a stream.
    const streamed = await chat('one/gpt-4o-mini', { stream: true, stream_options: { include_usage: true }, temperature: 0.5 })
    overheads.push(streamed.headers.get('x-gateway-overhead-ms'))
    expect(await streamed.text()).toContain('data: [DONE]')
    const failedOver = await chat('one/error-503')
    expect(failedOver.status).toBe(200)
    await failedOver.text()
    const madeUp = await chat('one/made-up-model-7f3a9c')
    await madeUp.text()
    const unknown = await chat('no-such-model-anywhere')
    expect(unknown.status).toBe(404)
    await unknown.text()
    m = await scrape(gw.url)
  })

  test('counts requests by endpoint, provider, model, status class and stream', () => {
    expect(m.families.get('gateway_requests')?.type).toBe('counter')
    const base = { endpoint: 'chat.completions', provider: 'one', model: 'gpt-4o-mini', status_class: '2xx' }
    expect(value(m, 'gateway_requests_total', { ...base, stream: 'false' })).toBe(2)
    expect(value(m, 'gateway_requests_total', { ...base, stream: 'true' })).toBe(1)
    expect(value(m, 'gateway_requests_total', { endpoint: 'chat.completions', provider: 'two', model: 'gpt-4o', status_class: '2xx' })).toBe(1)
    expect(value(m, 'gateway_requests_total', { provider: 'none', model: 'none', status_class: '4xx' })).toBe(1)
    expect(sum(m, 'gateway_requests_total')).toBe(6)
  })

  test('latency, time to first byte and overhead histograms hold every request', () => {
    expect(m.families.get('gateway_request_duration_seconds')?.type).toBe('histogram')
    expect(sum(m, 'gateway_request_duration_seconds_count')).toBe(6)
    expect(value(m, 'gateway_request_duration_seconds_bucket', { provider: 'one', model: 'gpt-4o-mini', stream: 'false', le: '+Inf' })).toBe(2)
    expect(value(m, 'gateway_time_to_first_byte_seconds_count', { provider: 'one', stream: 'true' })).toBe(1)
    expect(value(m, 'gateway_time_to_first_byte_seconds_sum', { provider: 'one', stream: 'true' })).toBeGreaterThan(0)
    expect(sum(m, 'gateway_overhead_seconds_count')).toBe(6)
    // The gateway's own share is part of the whole; for a request answered without an upstream it is all of it.
    expect(sum(m, 'gateway_overhead_seconds_sum')).toBeLessThanOrEqual(sum(m, 'gateway_request_duration_seconds_sum'))
    const notRouted = { provider: 'none', status_class: '4xx' }
    expect(value(m, 'gateway_overhead_seconds_sum', notRouted)).toBeCloseTo(value(m, 'gateway_request_duration_seconds_sum', notRouted), 6)
  })

  test('nothing is left in flight, no stream left open', () => {
    expect(value(m, 'gateway_requests_in_flight', { endpoint: 'chat.completions' })).toBe(0)
    expect(value(m, 'gateway_open_streams', { endpoint: 'chat.completions', provider: 'one' })).toBe(0)
  })

  test('upstream attempts, retries, failovers and circuit state', () => {
    expect(value(m, 'gateway_upstream_attempts_total', { provider: 'one', kind: 'primary', outcome: 'error', status_class: '5xx' })).toBe(1)
    expect(value(m, 'gateway_upstream_attempts_total', { provider: 'one', kind: 'retry', outcome: 'error' })).toBe(1)
    expect(value(m, 'gateway_upstream_attempts_total', { provider: 'two', model: 'gpt-4o', kind: 'failover', outcome: 'success' })).toBe(1)
    expect(value(m, 'gateway_upstream_retries_total', { provider: 'one' })).toBe(1)
    expect(value(m, 'gateway_failovers_total', { provider: 'two', model: 'gpt-4o' })).toBe(1)
    // Two consecutive failures, under the default threshold of 5: the circuit is known and closed.
    expect(value(m, 'gateway_circuit_breaker_state', { target: 'one/error-503' })).toBe(0)
  })

  test('tokens, cost and cache results', () => {
    expect(value(m, 'gateway_tokens_total', { provider: 'one', model: 'gpt-4o-mini', direction: 'input' })).toBeGreaterThan(0)
    expect(value(m, 'gateway_tokens_total', { provider: 'one', model: 'gpt-4o-mini', direction: 'output' })).toBeGreaterThan(0)
    expect(value(m, 'gateway_cost_usd_total', { provider: 'one', model: 'gpt-4o-mini' })).toBeGreaterThan(0)
    expect(value(m, 'gateway_cache_requests_total', { result: 'hit' })).toBe(1)
    expect(value(m, 'gateway_cache_requests_total', { result: 'miss' })).toBe(4)
  })

  test('labels stay bounded and secret-free', () => {
    expect(value(m, 'gateway_requests_total', { provider: 'one', model: 'other' })).toBe(1)
    expect(m.text).not.toContain('made-up-model-7f3a9c')
    expect(m.text).not.toContain('no-such-model-anywhere')
    for (const secret of [MASTER, KEY_ONE, KEY_TWO]) expect(m.text).not.toContain(secret)
  })

  test('audit writer, store and process metrics are read at scrape time', async () => {
    // Written within a few flush intervals; polled, not slept, so a slow machine waits longer rather than failing.
    const settled = (s: Scrape) =>
      value(s, 'gateway_audit_queue_depth') === 0 &&
      value(s, 'gateway_audit_entries_total', { state: 'written' }) >= 6 &&
      value(s, 'gateway_store_batch_duration_seconds_count', { store: 'usage', backend: 'sqlite' }) >= 1
    let later = await scrape(gw.url)
    for (let tries = 0; tries < 50 && !settled(later); tries++) {
      await Bun.sleep(100)
      later = await scrape(gw.url)
    }
    expect(value(later, 'gateway_audit_entries_total', { state: 'recorded' })).toBeGreaterThanOrEqual(6)
    expect(value(later, 'gateway_audit_entries_total', { state: 'written' })).toBeGreaterThanOrEqual(6)
    expect(value(later, 'gateway_audit_entries_total', { state: 'spilled' })).toBe(0)
    expect(value(later, 'gateway_audit_queue_depth')).toBe(0)
    // Nothing waits, so neither writer lags, and no spill file holds anything.
    expect(value(later, 'gateway_audit_lag_seconds')).toBe(0)
    expect(value(later, 'gateway_usage_lag_seconds')).toBe(0)
    expect(value(later, 'gateway_audit_spill_bytes')).toBe(0)
    expect(value(later, 'gateway_audit_batch_failures_total')).toBe(0)
    // Every written entry went through a timed batch; usage records too (the workflow meters usage).
    const auditBatches = value(later, 'gateway_store_batch_duration_seconds_count', { store: 'audit', backend: 'sqlite' })
    expect(auditBatches).toBeGreaterThanOrEqual(1)
    expect(auditBatches).toBeLessThanOrEqual(value(later, 'gateway_audit_entries_total', { state: 'written' }))
    expect(value(later, 'gateway_store_batch_duration_seconds_sum', { store: 'audit', backend: 'sqlite' })).toBeGreaterThan(0)
    expect(value(later, 'gateway_store_batch_duration_seconds_count', { store: 'usage', backend: 'sqlite' })).toBeGreaterThanOrEqual(1)
    expect(sum(later, 'gateway_store_errors_total')).toBe(0)
    expect(value(later, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000)
    expect(value(later, 'process_cpu_seconds_total')).toBeGreaterThan(0)
    expect(value(later, 'gateway_event_loop_lag_seconds')).toBeGreaterThanOrEqual(0)
  })

  test('responses carry x-gateway-overhead-ms', () => {
    expect(overheads).toHaveLength(2)
    for (const header of overheads) {
      expect(header).toMatch(/^\d+\.\d\d$/)
      expect(Number(header)).toBeLessThan(1000)
    }
  })

  test('/metrics takes an admin credential', async () => {
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(401)
    expect((await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer wrong-key-123456' } })).status).toBe(401)
  })
})

describe('metrics settings', () => {
  test('METRICS_PUBLIC opens /metrics; GATEWAY_OVERHEAD_HEADER=false drops the header', async () => {
    const g = await startGateway({ OPENAI_API_KEY: KEY_ONE, OPENAI_BASE_URL: one.url, GATEWAY_MASTER_KEY: MASTER, METRICS_PUBLIC: 'true', GATEWAY_OVERHEAD_HEADER: 'false' })
    try {
      const res = await fetch(`${g.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-gateway-overhead-ms')).toBeNull()
      const scraped = await scrape(g.url, undefined)
      expect(value(scraped, 'gateway_requests_total', { provider: 'openai', model: 'gpt-4o-mini' })).toBe(1)
    } finally {
      await g.stop()
    }
  })

  test('rate-limit denials count the gateway refusals, not an upstream 429', async () => {
    const file = writeGatewayYaml(`
providers:
  openai: { type: openai, api_key: ${KEY_ONE}, base_url: "${one.url}" }
workflows:
  - name: default
    features: { budget: true }
`)
    const g = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER })
    try {
      const admin = (path: string, body: unknown) =>
        fetch(`${g.url}/admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const key = (await (await admin('/keys', { name: 'metrics-limited' })).json()) as { id: string; key: string }
      expect((await admin('/rate-limits', { scope: { key_id: key.id }, requests_per_minute: 2 })).status).toBe(201)
      const post = (model: string) =>
        fetch(`${g.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        })
      const answers: { status: number; provider?: string }[] = []
      for (const model of ['openai/error-429', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini']) {
        const res = await post(model)
        const body = (await res.json()) as { error?: { provider?: string } }
        answers.push({ status: res.status, provider: body.error?.provider })
      }
      // The first 429 is the upstream's (its provider named); the later ones are the gateway's (provider '').
      expect(answers[0]).toEqual({ status: 429, provider: 'openai' })
      const refusedByGateway = answers.filter((a) => a.status === 429 && a.provider === '').length
      expect(refusedByGateway).toBeGreaterThanOrEqual(1)
      const scraped = await scrape(g.url)
      expect(value(scraped, 'gateway_limit_denials_total', { kind: 'rate_limit' })).toBe(refusedByGateway)
      expect(value(scraped, 'gateway_upstream_attempts_total', { provider: 'openai', status_class: '4xx' })).toBe(1)
    } finally {
      await g.stop()
    }
  })

  test('METRICS_ENABLED=false: no /metrics', async () => {
    const g = await startGateway({ OPENAI_API_KEY: KEY_ONE, OPENAI_BASE_URL: one.url, GATEWAY_MASTER_KEY: MASTER, METRICS_ENABLED: 'false' })
    try {
      expect((await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${MASTER}` } })).status).toBe(404)
    } finally {
      await g.stop()
    }
  })
})

describe('made-up model names', () => {
  test('hundreds of distinct names, failing and answered, add no label value and no circuit', async () => {
    const file = writeGatewayYaml(`
providers:
  one: { type: openai, api_key: ${KEY_ONE}, base_url: "${one.url}" }
  gone: { type: openai, api_key: ${KEY_TWO}, base_url: "http://127.0.0.1:9/v1" }
workflows:
  - name: default
    features: { failover: true }
    plugins:
      failover: { max_retries: 0, circuit_breaker: { failure_threshold: 1 } }
`)
    const g = await startGateway({ GATEWAY_CONFIG: file, GATEWAY_MASTER_KEY: MASTER })
    try {
      const send = (model: string) =>
        fetch(`${g.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'echo:x' }] }),
        }).then(async (res) => [res.status, await res.text()] as const)
      const statuses = new Set<number>()
      for (let batch = 0; batch < 30; batch++) {
        const names = Array.from({ length: 10 }, (_, i) => `made-up-${batch * 10 + i}`)
        for (const [status] of await Promise.all(names.flatMap((n) => [send(`gone/${n}`), send(`one/${n}`), send(n)]))) statuses.add(status)
      }
      expect([...statuses].sort()).toEqual([200, 404, 502])
      const scraped = await scrape(g.url)
      expect(scraped.text).not.toContain('made-up-')
      expect(matching(scraped, 'gateway_circuit_breaker_state')).toEqual([])
      const models = new Set(scraped.samples.flatMap((s) => (s.labels.model === undefined ? [] : [s.labels.model])))
      expect([...models].sort()).toEqual(['none', 'other'])
    } finally {
      await g.stop()
    }
  })
})
