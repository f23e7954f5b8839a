/**
 * The fault suite: one end-to-end test per upstream fault (test/helpers/fault-upstream.ts). Each checks what the
 * client gets, the audit entry, and that the gateway stays responsive (`/health` within 100 ms) while the fault
 * runs. Issue #17 defects 3 and 9 (bounded upstream bodies, broken answers) and the keep-it-fixed suite.
 */
import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { healthDuringAttempts } from '../helpers/fault-upstream.ts'
import { sseEvents } from '../helpers/sse-events.ts'
import { useFaultGateway } from '../helpers/fault-gateway.ts'

const MASTER = 'master-key-upstream-faults-0123456789abc'
const UPSTREAM_KEY = 'sk-fault-upstream-secret-4f9a8b7c6d5e'
const f = useFaultGateway({
  GATEWAY_MASTER_KEY: MASTER,
  OPENAI_API_KEY: UPSTREAM_KEY,
  LOGGING_LOG_BODIES: 'true',
  LOGGING_LOG_HEADERS: 'true',
  LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20',
  UPSTREAM_TTFB_TIMEOUT_MS: '1500',
  UPSTREAM_MAX_RESPONSE_BYTES: String(8 * 1024 * 1024),
})

function call(model: string, extra: Record<string, unknown> = {}) {
  const requestId = crypto.randomUUID()
  const response = fetch(`${f.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model: `openai/${model}`, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  })
  return { requestId, response }
}

/** Runs the fault while probing /health; returns the client's status and body text. */
async function underFault(model: string, extra: Record<string, unknown> = {}) {
  let last: { requestId: string; status: number; text: string } | undefined
  const run = async () => {
    const { requestId, response } = call(model, extra)
    const res = await response
    last = { requestId, status: res.status, text: await res.text() }
  }
  const slowest = await healthDuringAttempts(f.gw.url, run)
  return { ...last!, slowest }
}

describe('upstream faults', () => {
  test('a 100 MB error body: a short error for the client, a bounded audit row, memory and database stay small', async () => {
    const { requestId, status, text, slowest } = await underFault('huge-error')
    expect(slowest).toBeLessThan(100)
    expect(status).toBe(500)
    expect(text.length).toBeLessThan(4096)
    expect(JSON.parse(text).error).toMatchObject({ type: 'provider_error', provider: 'openai' })
    const entry = await f.admin.entryFor(requestId)
    expect(entry.status_code).toBe(500)
    expect(JSON.stringify(entry).length).toBeLessThan(256 * 1024)
    expect(statSync(f.gw.dbPath).size).toBeLessThan(64 * 1024 * 1024)
  }, 30_000)

  test('an answer over UPSTREAM_MAX_RESPONSE_BYTES is a clear 502, audited as an error', async () => {
    const { requestId, status, text, slowest } = await underFault('huge-answer', { metadata: { bytes: String(20 * 1024 * 1024) } })
    expect(slowest).toBeLessThan(100)
    expect(status).toBe(502)
    expect(JSON.parse(text).error).toMatchObject({ type: 'provider_error', code: 'upstream_response_too_large' })
    expect((await f.admin.entryFor(requestId)).status_code).toBe(502)
  }, 30_000)

  test('a 200 that is not JSON is a 502 upstream_invalid_response, audited as an error', async () => {
    const { requestId, status, text } = await underFault('non-json-200')
    expect(status).toBe(502)
    expect(JSON.parse(text).error).toMatchObject({ type: 'provider_error', code: 'upstream_invalid_response' })
    const entry = await f.admin.entryFor(requestId)
    expect(entry.status_code).toBe(502)
    expect(entry.data.error_code).toBe('upstream_invalid_response')
  })

  for (const [model, code] of [
    ['malformed-sse', 'upstream_invalid_stream'],
    ['cut-sse', 'upstream_invalid_stream'],
    ['reset-mid-stream', 'stream_interrupted'],
  ] as const) {
    test(`${model}: the stream ends with an error frame (${code}), junk is not passed on, the entry is an error`, async () => {
      const { requestId, status, text, slowest } = await underFault(model, { stream: true })
      expect(slowest).toBeLessThan(100)
      expect(status).toBe(200)
      expect(text).not.toContain('not json at all')
      expect(text).not.toContain('\u0000')
      const events = sseEvents(text)
      const error = events.find(([, data]) => typeof data === 'object' && data?.error)
      expect(error?.[1].error).toMatchObject({ code })
      const entry = await f.admin.entryFor(requestId)
      expect(entry.data.error_code).toBe(code)
    })
  }

  test('an upstream that never answers: 504 at the first-byte deadline, audited', async () => {
    const { requestId, status, text, slowest } = await underFault('hang')
    expect(slowest).toBeLessThan(100)
    expect(status).toBe(504)
    expect(JSON.parse(text).error.code).toBe('upstream_timeout')
    expect((await f.admin.entryFor(requestId)).status_code).toBe(504)
  }, 30_000)

  test('an upstream that echoes the credential it was sent: the key is nowhere in the answer or the audit entry', async () => {
    const { requestId, status, text } = await underFault('echo-key')
    expect(status).toBe(502)
    expect(text).not.toContain(UPSTREAM_KEY)
    const entry = await f.admin.entryFor(requestId)
    expect(entry.data.attempts?.length).toBeGreaterThan(0)
    const stored = JSON.stringify(entry)
    expect(stored).toContain('Incorrect API key provided')
    expect(stored).not.toContain(UPSTREAM_KEY)
    expect(stored).not.toContain(UPSTREAM_KEY.slice(3, 20))
  })

  test('a key sent in a header that is not on the redaction list is redacted by its shape', async () => {
    const requestId = crypto.randomUUID()
    const managedLooking = 'sk-gw-Zx8Q2mV7pL4nR9tY1wE6uI3oA5sD0fGh'
    const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${MASTER}`,
        'content-type': 'application/json',
        'x-request-id': requestId,
        'x-forwarded-authorization': `Bearer ${managedLooking}`,
        'x-upstream-key': managedLooking,
      },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(200)
    await res.text()
    const entry = await f.admin.entryFor(requestId)
    expect(entry.data.request_headers).toMatchObject({ 'x-forwarded-authorization': '[REDACTED]', 'x-upstream-key': '[REDACTED]' })
    expect(JSON.stringify(entry)).not.toContain(managedLooking)
  })

  test('a trickling stream keeps the gateway responsive; the client leaving ends it and its entry', async () => {
    let requestId = ''
    const run = async () => {
      requestId = crypto.randomUUID()
      const abort = new AbortController()
      const res = await fetch(`${f.gw.url}/v1/chat/completions`, {
        method: 'POST',
        signal: abort.signal,
        headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model: 'openai/trickle', stream: true, metadata: { every_ms: '50' }, messages: [{ role: 'user', content: 'hi' }] }),
      })
      const reader = res.body!.getReader()
      setTimeout(() => abort.abort(), 800)
      try {
        for (;;) if ((await reader.read()).done) break
      } catch {
        // aborted by the client, as intended
      }
    }
    expect(await healthDuringAttempts(f.gw.url, run)).toBeLessThan(100)
    const entry = await f.admin.entryFor(requestId)
    expect(entry.path).toBe('/v1/chat/completions')
  }, 20_000)
})
