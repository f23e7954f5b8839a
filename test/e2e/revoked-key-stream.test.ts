/**
 * A stream whose key is revoked while it runs ends at its next chunk with the stream's error frame, in the framing
 * of its endpoint (OpenAI chat, Responses, Anthropic), and is audited as an error (issue #17 defect 10). The upstream
 * is a real slow SSE stream; the key is revoked through the admin API while the client is reading.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startFaultUpstream, type FaultUpstream } from '../helpers/fault-upstream.ts'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { sseEvents } from '../helpers/sse-events.ts'

const MASTER = 'master-key-revoked-stream-0123456789abcdef'
let upstream: FaultUpstream
let gw: RunningGateway
let admin: AuditAdmin

beforeAll(async () => {
  upstream = startFaultUpstream()
  // Mistral has no native Responses or Messages API: all three endpoints translate onto the upstream's chat stream.
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, MISTRAL_API_KEY: 'sk-revoked-stream-upstream', MISTRAL_BASE_URL: upstream.url, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '20' })
  admin = auditAdmin(gw.url, MASTER)
})
afterAll(async () => {
  await gw?.stop()
  upstream?.stop()
})

async function adminCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

// 60 frames, 50 ms apart.
const model = 'mistral/slow-stream-50-60'
const cases = [
  { path: '/v1/chat/completions', body: { model, stream: true, messages: [{ role: 'user', content: 'hi' }] } },
  { path: '/v1/responses', body: { model, stream: true, input: 'hi' } },
  { path: '/v1/messages', body: { model, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] } },
]

const ticks = (events: [string | undefined, any][]) => events.filter(([, data]) => JSON.stringify(data).includes('tick')).length

describe('a key revoked while its stream runs', () => {
  for (const c of cases) {
    test(`${c.path}: the stream ends at its next chunk with the error frame, audited`, async () => {
      const created = await adminCall('POST', '/keys', { name: `revoked-mid-stream ${c.path}` })
      expect(created.status).toBe(201)
      const requestId = crypto.randomUUID()
      const res = await fetch(`${gw.url}${c.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.body.key}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify(c.body),
      })
      expect(res.status).toBe(200)
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      // Read until some content has arrived, then revoke.
      while (!text.includes('tick')) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      expect(text).toContain('tick')
      expect((await adminCall('POST', `/keys/${created.body.id}/revoke`)).status).toBe(200)
      const revokedAt = Date.now()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      // The upstream would have run on for up to 3 s (60 frames, 50 ms apart).
      expect(Date.now() - revokedAt).toBeLessThan(1500)
      const events = sseEvents(text)
      expect(ticks(events)).toBeLessThan(20)
      const tail = JSON.stringify(events.slice(-2))
      expect(tail).toContain('api_key_revoked')
      if (c.path === '/v1/messages') expect(events.at(-1)![0]).toBe('error')
      const entry = await admin.entryFor(requestId)
      expect(entry).toMatchObject({ error_type: 'authentication_error' })
      expect(JSON.stringify(entry)).toContain('api_key_revoked')
      // The next request with the key is refused outright.
      const again = await fetch(`${gw.url}${c.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.body.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(c.body),
      })
      expect(again.status).toBe(401)
      await again.text()
    }, 10_000)
  }

  test('a stream of a key that stays valid runs to its end', async () => {
    const created = await adminCall('POST', '/keys', { name: 'valid-stream' })
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.body.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...cases[0]!.body, model: 'mistral/slow-stream-5-10' }),
    })
    const events = sseEvents(await res.text())
    expect(ticks(events)).toBe(10)
    expect(events.at(-1)![1]).toBe('[DONE]')
  })
})
