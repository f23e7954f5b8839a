/**
 * Hostile requests cannot stall the gateway: while each runs, `/health` keeps answering within 100 ms.
 * Token estimates are bounded (issue #17 defect 1); bodies of millions of values are refused before they are
 * parsed (issue 26 defect 1). The gateway runs as a process of its own, so the test's own work (building and sending
 * megabyte bodies, the fault upstream) does not count against its latency, and its memory can be read.
 */
import { describe, expect, test } from 'bun:test'
import { healthDuringAttempts } from '../helpers/fault-upstream.ts'
import { useFaultGateway } from '../helpers/fault-gateway.ts'
import { peakRssDuring, rssMb } from '../helpers/gateway-process.ts'

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

describe('a body of millions of empty messages (issue 26 defect 1)', () => {
  const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
  const emptyMessages = (count: number) => `{"model":"openai/gpt-4o-mini","messages":[${'{},'.repeat(count - 1)}{}]}`
  // Just under the default body limit: eleven million `{}`.
  const hostile = new TextEncoder().encode(emptyMessages(Math.floor((DEFAULT_MAX_BODY_BYTES - 64) / 3)))
  const send = (body: BodyInit) =>
    fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body }).then(async (res) => ({
      status: res.status,
      requestId: res.headers.get('x-request-id')!,
      error: ((await res.json()) as { error: { code: string; message: string; param: string | null } }).error,
    }))

  test('32 MiB of `{}` is refused at once with a 400 naming the limit; /health keeps answering within 100 ms', async () => {
    expect(hostile.byteLength).toBeLessThan(DEFAULT_MAX_BODY_BYTES)
    expect(await healthDuringAttempts(f.gw.url, () => send(hostile))).toBeLessThan(100)
    const started = performance.now()
    const answer = await send(hostile)
    expect(answer).toMatchObject({ status: 400, error: { code: 'json_too_many_values' } })
    expect(answer.error.message).toContain('1000000 values')
    expect(performance.now() - started).toBeLessThan(2000)
    const entry = await f.admin.entryFor(answer.requestId)
    expect(entry).toMatchObject({ status_code: 400, error_type: 'invalid_request_error', data: { error_code: 'json_too_many_values', request_body_too_big_to_handle: true } })
  }, 60_000)

  test('four such bodies at once: /health stays responsive and memory grows by less than 100 MiB', async () => {
    const pid = f.gw.proc.pid
    await send(hostile) // the first large body of a process allocates buffers that later ones reuse
    const before = rssMb(pid)
    const four = () => Promise.all(Array.from({ length: 4 }, () => send(hostile)))
    const run = four()
    const peak = await peakRssDuring(pid, run, { killAboveMb: before + 2048 })
    for (const answer of await run) expect(answer.status).toBe(400)
    // Each is refused after its first few megabytes, never decoded nor parsed (it was 5 GiB for one).
    expect(peak - before).toBeLessThan(100)
    expect(await healthDuringAttempts(f.gw.url, four)).toBeLessThan(100)
  }, 60_000)

  test('an array over its bound is refused naming the field and the bound, without checking its elements', async () => {
    const answer = await send(emptyMessages(100_001))
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'messages' } })
    expect(answer.error.message).toContain('100000')
  })

  test('100,000 invalid messages: the 400 names the first, at once', async () => {
    expect(await healthDuringAttempts(f.gw.url, () => send(emptyMessages(100_000)))).toBeLessThan(100)
    const answer = await send(emptyMessages(100_000))
    expect(answer).toMatchObject({ status: 400, error: { code: 'invalid_request', param: 'messages.0.role' } })
  })

  test('the largest conversation the bounds allow (100,000 messages) is served; its cost is linear', async () => {
    const message = '{"role":"user","content":"hi"}'
    const body = `{"model":"openai/gpt-4o-mini","messages":[${`${message},`.repeat(99_999)}${message}]}`
    const call = () => fetch(`${f.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body })
    // About 50-100 ms of work on a loaded 2-core machine (parse, schema check, upstream body): a real conversation
    // this long is a legitimate request. The bound catches anything worse than linear (a quadratic scan cost seconds).
    expect(await healthDuringAttempts(f.gw.url, call, { goodMs: 250 })).toBeLessThan(250)
    expect((await call()).status).toBe(200)
  })
})
