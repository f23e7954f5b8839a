/**
 * Failover never answers a key with a model it may not use (issue 26, defect 6). A key allowed only `down/cheap`
 * was answered by `oai/gpt-4o` when the primary failed, and a client can make the primary fail on purpose (429s,
 * an open circuit). Every fallback (configured failover targets, a weighted virtual model's other targets) goes
 * through the key's model access; when none is allowed the primary's failure stands.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chatCompletion, openaiError, serveRecording } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

/** The cheap upstream: fails as `failWith` says (a status, or none to answer). */
let failWith: 429 | 503 | undefined = 503
const down = serveRecording((_req, _url, recorded) => {
  if (failWith === 429) return openaiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded', { 'retry-after-ms': '1' })
  if (failWith === 503) return openaiError(503, 'The engine is currently overloaded.', 'server_error', null)
  return Response.json(chatCompletion(recorded.body.model, 'cheap answer'))
})
afterAll(() => down.stop())

const t = useGatewaySuite({
  yaml: (urls) => `
providers:
  down: { type: openai, api_key: k, base_url: "${down.origin}/v1" }
  oai: { type: openai, api_key: sk-openai-test, base_url: "${urls.openai}" }
virtual_models:
  - source: pool
    target: down/cheap
    targets: [{ target: down/cheap, weight: 1000000000 }, { target: oai/gpt-4o, weight: 0.000000001 }]
workflows:
  - name: default
    features: { failover: true }
    plugins:
      failover:
        max_retries: 0
        targets:
          down/cheap: [oai/gpt-4o]
          down/breaks: [oai/gpt-4o]
        circuit_breaker: { failure_threshold: 4, cooldown_ms: 600000 }
`,
})

const keys: Record<string, string> = {}
beforeAll(async () => {
  const make = async (name: string, allowed_models: string[]) => {
    const res = await fetch(`${t.gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, allowed_models }),
    })
    keys[name] = ((await res.json()) as { key: string }).key
  }
  await make('cheap-only', ['down/cheap', 'down/breaks'])
  await make('cheap-and-openai', ['down/cheap', 'oai/*'])
  await make('pool', ['pool'])
})

async function chat(key: string, model: string) {
  const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[key]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'echo:from openai' }] }),
  })
  return { status: res.status, body: (await res.json()) as any, requestId: res.headers.get('x-request-id')! }
}

const openaiCalls = () => t.openaiMock.requests.filter((r) => r.method === 'POST').length

describe('a fallback the key may not use is never tried', () => {
  for (const status of [503, 429] as const) {
    test(`primary fails with ${status}: the restricted key gets the primary's failure; a key allowed both gets the fallback`, async () => {
      failWith = status
      const before = openaiCalls()
      const refused = await chat('cheap-only', 'down/cheap')
      expect(refused.status).toBe(status)
      expect(refused.body.error.provider).toBe('down')
      expect(openaiCalls()).toBe(before)
      const entry = await t.audit.entryFor(refused.requestId)
      expect(entry.data.attempts!.map((a) => `${a.kind}:${a.provider_name}/${a.model}:${a.status_code}`)).toEqual([`primary:down/cheap:${status}`])
      expect(entry.data.failover).toBeUndefined()

      // The control: the same request with a key allowed the fallback is answered by it.
      const answered = await chat('cheap-and-openai', 'down/cheap')
      expect(answered.status).toBe(200)
      expect(answered.body.choices[0].message.content).toBe('from openai')
      expect(openaiCalls()).toBe(before + 1)
      failWith = undefined
      expect((await chat('cheap-only', 'down/cheap')).body.choices[0].message.content).toBe('cheap answer')
    })
  }

  test('a weighted virtual model: its other targets count as the virtual model the key was allowed, not as the primary', async () => {
    failWith = 503
    const before = openaiCalls()
    // Allowed `down/cheap` by name only: the pool's primary pick is allowed, its oai/gpt-4o alternative is not.
    const restricted = await chat('cheap-only', 'pool')
    expect(restricted.status).toBe(503)
    expect(openaiCalls()).toBe(before)
    // Allowed the pool itself: every target of the pool may answer.
    const pool = await chat('pool', 'pool')
    expect(pool.status).toBe(200)
    expect(openaiCalls()).toBe(before + 1)
    failWith = undefined
  })

  test('an open circuit skips the primary, and the restricted key still gets no fallback', async () => {
    failWith = 503
    for (let i = 0; i < 4; i++) expect((await chat('cheap-only', 'down/breaks')).status).toBe(503)
    const upstreamCalls = down.requests.length
    const before = openaiCalls()
    const skipped = await chat('cheap-only', 'down/breaks')
    expect(skipped.status).toBe(503)
    expect(skipped.body.error.code).toBe('circuit_open')
    expect(down.requests.length).toBe(upstreamCalls)
    expect(openaiCalls()).toBe(before)
    const entry = await t.audit.entryFor(skipped.requestId)
    expect(entry.data.attempts ?? []).toEqual([])
    failWith = undefined
  })
})
