/**
 * Request labels end to end: tagging headers → every audit entry (also a 401's and a 400's), the `label` filter
 * of /admin/audit/log, and `by=label` of /admin/usage/breakdown, with configured headers and limits.
 */
import { describe, expect, test } from 'bun:test'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  yaml: () => `
labels:
  header: X-Team-Labels
  max_count: 3
  max_length: 20
`,
})

function chat(headers: Record<string, string>, key = t.master) {
  const requestId = crypto.randomUUID()
  const response = fetch(`${t.gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  })
  return { requestId, response }
}

describe('labels from tagging headers', () => {
  test('the configured list header and tag headers fill LogData.labels', async () => {
    const { requestId, response } = chat({ 'x-team-labels': 'checkout, nightly', 'x-gateway-tag-team': 'payments' })
    expect((await response).status).toBe(200)
    const entry = await t.audit.entryFor(requestId)
    expect(entry.data.labels).toEqual(['checkout', 'nightly', 'team:payments'])
  })

  test('an entry without tagging headers has an empty list', async () => {
    const { requestId, response } = chat({})
    expect((await response).status).toBe(200)
    expect((await t.audit.entryFor(requestId)).data.labels).toEqual([])
  })

  test('a rejected key still records the labels', async () => {
    const { requestId, response } = chat({ 'x-team-labels': 'intruder' }, 'sk-wrong-key-000000')
    expect((await response).status).toBe(401)
    const entry = await t.audit.entryFor(requestId)
    expect(entry.status_code).toBe(401)
    expect(entry.data.labels).toEqual(['intruder'])
  })

  test('too many or too long labels: 400 invalid_labels naming the header, with an audit entry', async () => {
    const tooMany = chat({ 'x-team-labels': 'a,b,c,d' })
    const res = await tooMany.response
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { code: string; param: string; message: string } }
    expect(body.error).toMatchObject({ code: 'invalid_labels', param: 'x-team-labels' })
    expect(body.error.message).toContain('at most 3 labels')
    expect((await t.audit.entryFor(tooMany.requestId)).data.error_code).toBe('invalid_labels')

    const upstreamCalls = t.openaiMock.requests.length
    const tooLong = chat({ 'x-gateway-tag-owner': 'x'.repeat(30) })
    expect((await tooLong.response).status).toBe(400)
    expect(t.openaiMock.requests.length).toBe(upstreamCalls)
  })

  test('the audit list filters by label (exact), combined with other filters', async () => {
    const tag = `run-${Date.now() % 100000}`
    const first = chat({ 'x-team-labels': `${tag},alpha` })
    const second = chat({ 'x-team-labels': tag })
    chat({ 'x-team-labels': `${tag}x` })
    await Promise.all([first.response, second.response])
    const page = await t.audit.eventually(
      () => t.audit.list({ label: tag }),
      (p) => p.total === 2,
    )
    expect(page.entries.map((e) => e.request_id).sort()).toEqual([first.requestId, second.requestId].sort())
    expect(page.entries.every((e) => e.data.labels?.includes(tag))).toBe(true)
    expect((await t.audit.list({ label: tag, search: first.requestId })).total).toBe(1)
    expect((await t.audit.list({ label: 'alpha', status_code: '500' })).total).toBe(0)
    expect((await t.audit.list({ label: 'no-such-label' })).total).toBe(0)
    expect((await t.audit.get(`/audit/log?label=${'x'.repeat(300)}`)).status).toBe(400)
  })

  test('usage breaks down by label: a request counts under each of its labels, unlabelled under ""', async () => {
    const tag = `usage-${Date.now() % 100000}`
    await Promise.all([chat({ 'x-team-labels': `${tag},shared-${tag}` }).response, chat({ 'x-team-labels': `shared-${tag}` }).response, chat({}).response])
    type Row = { label: string; requests: number; total_tokens: number }
    const read = async () =>
      (await (await fetch(`${t.gw.url}/admin/usage/breakdown?by=label&days=1`, { headers: { authorization: `Bearer ${t.master}` } })).json()) as { by: string; data: Row[] }
    const result = await t.audit.eventually(read, (r) => (r.data.find((row) => row.label === `shared-${tag}`)?.requests ?? 0) >= 2)
    expect(result.by).toBe('label')
    expect(result.data.find((r) => r.label === tag)?.requests).toBe(1)
    expect(result.data.find((r) => r.label === `shared-${tag}`)?.requests).toBe(2)
    expect(result.data.find((r) => r.label === '')?.requests).toBeGreaterThanOrEqual(1)
    const perDay = (await (await fetch(`${t.gw.url}/admin/usage/breakdown?by=label&interval=day&days=1`, { headers: { authorization: `Bearer ${t.master}` } })).json()) as {
      data: (Row & { day: string })[]
    }
    expect(perDay.data.find((r) => r.label === tag)?.day).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })
})
