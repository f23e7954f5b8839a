/**
 * Hostile requests cannot stall the gateway: while each runs, `/health` keeps answering within 100 ms.
 * Token estimates are bounded (issue #17 defect 1). The gateway runs as a process of its own, so the test's own
 * work (building and sending megabyte bodies, the fault upstream) does not count against its latency.
 */
import { describe, expect, test } from 'bun:test'
import { healthDuringAttempts } from '../helpers/fault-upstream.ts'
import { useFaultGateway } from '../helpers/fault-gateway.ts'

const MASTER = 'master-key-hostile-requests-0123456789'
const f = useFaultGateway({
  GATEWAY_MASTER_KEY: MASTER,
  OPENAI_API_KEY: 'sk-fault-upstream-key-0000000000',
  LOGGING_LOG_BODIES: 'true',
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20',
})

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${f.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('token estimates are bounded (defect 1)', () => {
  test('count_tokens of one 128 KB word for a non-Anthropic model answers at once; /health stays responsive', async () => {
    const count = () => post('/v1/messages/count_tokens', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'y'.repeat(128 * 1024) }] })
    expect(await healthDuringAttempts(f.gw.url, count)).toBeLessThan(100)
    const started = performance.now()
    const res = await count()
    expect(res.status).toBe(200)
    const { input_tokens } = (await res.json()) as { input_tokens: number }
    expect(input_tokens).toBeGreaterThan((128 * 1024) / 8)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('a prompt of one 1 MB word, counted because the upstream reports no usage, does not stall the gateway', async () => {
    const call = () => post('/v1/chat/completions', { model: 'openai/long-word', metadata: { bytes: '10' }, messages: [{ role: 'user', content: 'q'.repeat(1024 * 1024) }] })
    expect(await healthDuringAttempts(f.gw.url, call)).toBeLessThan(100)
    expect((await call()).status).toBe(200)
  })

  for (const stream of [false, true]) {
    test(`an upstream answer without usage that is one long word (${stream ? 'streamed, 1 MB' : '512 KB'}) is estimated without stalling`, async () => {
      const bytes = stream ? 1024 * 1024 : 512 * 1024
      const call = () =>
        post('/v1/chat/completions', { model: 'openai/long-word', stream, metadata: { bytes: String(bytes) }, messages: [{ role: 'user', content: 'say y' }] }).then((r) =>
          r.text(),
        )
      expect(await healthDuringAttempts(f.gw.url, call, { afterMs: 500 })).toBeLessThan(100)
      const text = await call()
      expect(text.length).toBeGreaterThan(bytes)
    })
  }
})

describe('deeply nested JSON (defect 6)', () => {
  test('a body nested 100,000 levels deep is a 400 naming the limit, at once', async () => {
    const deep = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    const call = () => fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: deep })
    expect(await healthDuringAttempts(f.gw.url, call)).toBeLessThan(100)
    const res = await call()
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('json_too_deep')
    expect(body.error.message).toContain('128 levels')
  })
})
