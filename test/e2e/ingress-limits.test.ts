/**
 * What a request may cost before it is known to be allowed (issue #17 defect 2 and the small items of 10): the key
 * is checked from the headers before any byte of the body is read, a body that trickles in is cut at the body
 * deadline, and a body over the limit is refused as soon as it passes the limit, with the GatewayError shape and
 * an audit entry. The gateway runs as a process of its own, so its resident memory can be read.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin } from '../helpers/audit-admin.ts'
import { rssMb, spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts'
import { postHead, rawHttp } from '../helpers/raw-http.ts'

const MASTER = 'master-key-ingress-limits-0123456789abcdef'
const LIMIT = 1024 * 1024
let upstream: FaultUpstream
let gw: GatewayProcess
let small: GatewayProcess

beforeAll(async () => {
  upstream = startFaultUpstream()
  const env = { GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'sk-ingress-upstream-000000000000', OPENAI_BASE_URL: upstream.url, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20' }
  ;[gw, small] = await Promise.all([spawnGateway(env), spawnGateway({ ...env, GATEWAY_MAX_BODY_BYTES: String(LIMIT), GATEWAY_BODY_TIMEOUT_SECONDS: '1' })])
}, 30_000)
afterAll(async () => {
  await Promise.all([gw?.stop(), small?.stop()])
  upstream.stop()
})

const host = (url: string) => new URL(url).host

/** An ordinary chat completion with the master key. */
const smallChat = (to: GatewayProcess) =>
  fetch(`${to.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  })

describe('authentication before the body (defect 2)', () => {
  test('four 33 MB bodies with a wrong key are refused without growing memory', async () => {
    const body = new TextEncoder().encode('{}'.repeat(16_500_000))
    // Warm up: the first requests of a process allocate what every later one reuses.
    await (await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer wrong-key' }, body: '{}' })).text()
    const before = rssMb(gw.proc.pid)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer wrong-key', 'content-type': 'application/json' }, body }).then(async (r) => ({
          status: r.status,
          body: await r.json(),
        })),
      ),
    )
    const grown = rssMb(gw.proc.pid) - before
    for (const a of answers) expect(a).toMatchObject({ status: 401, body: { error: { type: 'authentication_error', code: 'invalid_api_key' } } })
    expect(grown).toBeLessThan(40)
  }, 20_000)

  test('a wrong key is refused before its body arrives at all', async () => {
    const raw = await rawHttp(
      gw.url,
      postHead('/v1/chat/completions', host(gw.url), { authorization: 'Bearer wrong-key', 'content-type': 'application/json', 'content-length': '100000' }),
    )
    expect(await raw.waitFor('\r\n\r\n', 3000)).toStartWith('HTTP/1.1 401')
    raw.end()
  })

  test('a good key still works, and its body is read', async () => {
    const res = await smallChat(gw)
    expect(res.status).toBe(200)
    expect((await res.json()).choices[0].message.content).toBe('fine')
  })
})

describe('body deadline (defect 2)', () => {
  test('a body that trickles in is answered 408 and the connection closed at the deadline; the request is audited', async () => {
    const started = Date.now()
    const raw = await rawHttp(
      small.url,
      postHead('/v1/chat/completions', host(small.url), {
        authorization: `Bearer ${MASTER}`,
        'content-type': 'application/json',
        'content-length': '1000',
        'x-request-id': 'trickle-0001',
      }),
    )
    raw.write('{"model":')
    expect(await raw.waitClosed(5000)).toBe(true)
    expect(Date.now() - started).toBeLessThan(4000)
    expect(raw.received).toStartWith('HTTP/1.1 408')
    expect(raw.received).toContain('"code":"request_body_timeout"')
    const admin = auditAdmin(small.url, MASTER)
    const page = await admin.eventually(
      () => admin.list({ status_code: '408' }),
      (p) => p.total > 0,
    )
    expect(page.entries[0]).toMatchObject({ status_code: 408, error_type: 'invalid_request_error' })
  }, 10_000)

  test('a request whose body arrived in time is not affected by the deadline', async () => {
    const res = await smallChat(small)
    expect(res.status).toBe(200)
    await res.text()
  })
})

describe('bodies over the limit (defect 10)', () => {
  test('a chunked body is refused as soon as it passes the limit, not when it ends', async () => {
    const raw = await rawHttp(
      small.url,
      postHead('/v1/chat/completions', host(small.url), { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    )
    const piece = 'x'.repeat(64 * 1024)
    for (let i = 0; i < 24 && !raw.closed && !raw.received; i++) {
      raw.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)
      await Bun.sleep(5)
    }
    // Never sent the last chunk: the answer must not wait for it.
    const answer = await raw.waitFor('}', 3000)
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer).toContain('"code":"request_too_large"')
    raw.end()
  })
})

describe("bodies past Bun's own limit (defect 10: 70 MB)", () => {
  const MB = 1024 * 1024
  const piece = 'x'.repeat(MB)

  /** Sends up to `total` bytes (as chunks when `chunked`) until the server answers; returns what was sent. */
  async function sendUntilAnswered(raw: Awaited<ReturnType<typeof rawHttp>>, total: number, chunked: boolean): Promise<number> {
    let sent = 0
    while (sent < total && !raw.closed && !raw.received) {
      if (!(await raw.writeAll(chunked ? `${piece.length.toString(16)}\r\n${piece}\r\n` : piece))) break
      sent += piece.length
    }
    return sent
  }

  test('a declared 70 MB body on /v1/messages gets the Anthropic 413 before it is read, and an audit entry', async () => {
    const before = rssMb(gw.proc.pid)
    const raw = await rawHttp(
      gw.url,
      postHead('/v1/messages', host(gw.url), {
        'x-api-key': MASTER,
        'content-type': 'application/json',
        'content-length': String(70 * MB),
        'x-request-id': 'oversize-declared-0001',
      }),
    )
    const answer = await raw.waitFor('}}', 5000)
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer.toLowerCase()).toContain('connection: close')
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    expect(json).toMatchObject({ type: 'error', error: { type: 'request_too_large' } })
    // Nothing of the body was needed to answer, and nothing of it was buffered.
    await sendUntilAnswered(raw, 70 * MB, false)
    raw.end()
    expect(rssMb(gw.proc.pid) - before).toBeLessThan(20)
    const admin = auditAdmin(gw.url, MASTER)
    const page = await admin.eventually(
      () => admin.list({ status_code: '413', path: '/v1/messages' }),
      (p) => p.total > 0,
    )
    expect(page.entries[0]).toMatchObject({ status_code: 413 })
  }, 20_000)

  test('a chunked 70 MB body gets the GatewayError 413 once it passes the limit, with memory bounded by the limit', async () => {
    const before = rssMb(gw.proc.pid)
    const raw = await rawHttp(
      gw.url,
      postHead('/v1/chat/completions', host(gw.url), { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    )
    const sent = await sendUntilAnswered(raw, 70 * MB, true)
    const answer = await raw.waitFor('}}', 5000)
    expect(answer).toStartWith('HTTP/1.1 413')
    expect(answer).toContain('"code":"request_too_large"')
    // Refused at the 32 MiB limit, not after the 70 MB (the socket may still hold a few MB in flight).
    expect(sent).toBeLessThan(50 * MB)
    raw.end()
    expect(rssMb(gw.proc.pid) - before).toBeLessThan(90)
    const admin = auditAdmin(gw.url, MASTER)
    await admin.eventually(
      () => admin.list({ status_code: '413', path: '/v1/chat/completions' }),
      (p) => p.total > 0,
    )
  }, 30_000)

  test('admin bodies are bounded at 1 MiB with a GatewayError 413 (declared and chunked)', async () => {
    const big = JSON.stringify({ name: 'k', description: 'd'.repeat(2 * MB) })
    const res = await fetch(`${gw.url}/admin/keys`, { method: 'POST', headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' }, body: big })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ error: { code: 'request_too_large' } })
    const raw = await rawHttp(
      gw.url,
      postHead('/admin/keys', host(gw.url), { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    )
    await sendUntilAnswered(raw, 70 * MB, true)
    expect(await raw.waitFor('}}', 5000)).toStartWith('HTTP/1.1 413')
    raw.end()
    // A small admin body still works.
    const ok = await fetch(`${gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'small' }),
    })
    expect(ok.status).toBe(201)
    await ok.text()
  }, 20_000)
})

describe('failed authentication is throttled per address (defect 8; issue 26 defect 10)', () => {
  test('a flood of wrong keys throttles the address: 401 auth_throttled with Retry-After, the right key too until it waits', async () => {
    const answers: string[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${small.url}/v1/models`, { headers: { authorization: `Bearer wrong-key-${i}` } })
      const body = (await res.json()) as { error: { code: string } }
      answers.push(`${res.status} ${body.error.code}`)
      if (body.error.code === 'auth_throttled') retryAfter ??= res.headers.get('retry-after')
    }
    expect(answers.slice(0, 25).every((a) => a === '401 invalid_api_key')).toBe(true)
    expect(answers.slice(-5)).toEqual(Array(5).fill('401 auth_throttled'))
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
    // Refused before the key is checked: a right guess gets the same answer while the address is throttled.
    const right = await fetch(`${small.url}/v1/models`, { headers: { authorization: `Bearer ${MASTER}` } })
    expect(right.status).toBe(401)
    const wait = Number(right.headers.get('retry-after'))
    expect(((await right.json()) as { error: { code: string } }).error.code).toBe('auth_throttled')
    await Bun.sleep(wait * 1000)
    for (let i = 0; i < 5; i++) expect((await fetch(`${small.url}/v1/models`, { headers: { authorization: `Bearer ${MASTER}` } })).status).toBe(200)
  }, 15_000)
})

describe('small items (defect 10)', () => {
  test('TRACE is a 405 with Allow on every path', async () => {
    for (const path of ['/', '/v1/chat/completions', '/admin/keys', '/health']) {
      const res = await fetch(`${gw.url}${path}`, { method: 'TRACE' })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, POST')
      await res.arrayBuffer()
    }
  })
})
