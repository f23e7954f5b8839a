/**
 * The audit admin API over HTTP: every list filter, every validation error (a 400 GatewayError naming the
 * parameter), the detail endpoint's 400/401/404/500, conversation and stats, and the OpenAPI description.
 * Entries are seeded through the gateway's own store, with times relative to now.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { AuditLogEntry } from '../../src/audit/entry.ts'
import { LIST_PARAMS } from '../../src/audit/query.ts'
import { auditConversationSchema, auditLogPageSchema, auditStatsSchema, auditWriterStatsSchema } from '../../src/audit/schemas.ts'
import { makeEntry, seedAudit } from '../helpers/audit-entries.ts'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'

const MASTER = 'master-key-for-audit-admin-0123456789'
const DAY = 86_400_000
const NOW = Date.now()
const TODAY = Math.floor(NOW / DAY) * DAY
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
let gw: RunningGateway
let audit: AuditAdmin

const seeded = {
  today: makeEntry({
    at: Math.max(TODAY + 30, NOW - 1000),
    requested_model: 'fast',
    provider: 'openai',
    provider_name: 'openai',
    session_id: 'sess-a',
    user_path: '/acme/team-a/alice',
  }),
  streamed: makeEntry({
    at: Math.max(TODAY + 20, NOW - 2000),
    stream: true,
    requested_model: 'smart',
    provider: 'azure-openai',
    provider_name: 'azure-east',
    user_path: '/acme/team-b',
  }),
  limited: makeEntry({
    at: TODAY - 2 * DAY + 1000,
    status_code: 429,
    error_type: 'rate_limit_error',
    data: { error_code: 'rate_limit_exceeded', error_message: 'Rate limit reached for requests', error_provider: 'openai' },
  }),
  models: makeEntry({ at: TODAY - 5 * DAY + 1000, method: 'GET', path: '/v1/models', requested_model: '', session_id: 'sess-a' }),
  old: makeEntry({ at: TODAY - 40 * DAY + 1000, session_id: 'sess-a', requested_model: 'fast', request_id: 'req_client_old' }),
  otherTeam: makeEntry({ at: Math.max(TODAY + 10, NOW - 3000), user_path: '/acme-b', provider: 'groq', provider_name: 'groq' }),
}

beforeAll(async () => {
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' })
  audit = auditAdmin(gw.url, MASTER)
  await seedAudit(gw.gateway.auditLog.writer, Object.values(seeded))
})
afterAll(async () => {
  await gw.stop()
})

const idsOf = (entries: AuditLogEntry[]) => entries.map((e) => e.id)
const list = (params: Record<string, string>) => audit.list(params)

describe('GET /admin/audit/log', () => {
  test('default: the last 30 days, newest first, slim entries, AuditLogPage shape', async () => {
    const page = await list({})
    expect(auditLogPageSchema.parse(page)).toBeTruthy()
    expect(idsOf(page.entries)).toEqual([seeded.today, seeded.streamed, seeded.otherTeam, seeded.limited, seeded.models].map((e) => e.id))
    expect(page).toMatchObject({ total: 5, total_relation: 'eq', limit: 25, offset: 0 })
    // Under the cap the count is exact either way; exact_total only lifts the cap (the stores' contract covers it).
    expect(await list({ exact_total: 'true' })).toMatchObject({ total: 5, total_relation: 'eq' })
    expect(page.entries.every((e) => e.bodies_omitted === true)).toBe(true)
  })

  const cases: [string, Record<string, string>, (keyof typeof seeded)[]][] = [
    ['days', { days: '1' }, ['today', 'streamed', 'otherTeam']],
    ['start_date..end_date (inclusive)', { start_date: dateOf(TODAY - 5 * DAY), end_date: dateOf(TODAY - 2 * DAY) }, ['limited', 'models']],
    ['start_date alone', { start_date: dateOf(TODAY - 2 * DAY) }, ['today', 'streamed', 'otherTeam', 'limited']],
    ['end_date alone reaches back `days`', { end_date: dateOf(TODAY - 2 * DAY), days: '4' }, ['limited', 'models']],
    ['requested_model', { requested_model: 'smart' }, ['streamed']],
    ['model (alias)', { model: 'smart' }, ['streamed']],
    ['provider by type', { provider: 'azure-openai' }, ['streamed']],
    ['provider by name', { provider: 'azure-east' }, ['streamed']],
    ['method', { method: 'get' }, ['models']],
    ['path', { path: '/v1/models' }, ['models']],
    ['user_path subtree', { user_path: '/acme' }, ['today', 'streamed']],
    ['session_id without dates: the whole session', { session_id: 'sess-a' }, ['today', 'models', 'old']],
    ['session_id with days', { session_id: 'sess-a', days: '30' }, ['today', 'models']],
    ['error_type', { error_type: 'rate_limit_error' }, ['limited']],
    ['status_code', { status_code: '429' }, ['limited']],
    ['stream', { stream: 'true' }, ['streamed']],
    ['search: error message words', { search: 'rate limit reached' }, ['limited']],
    ['search: an entry id', { search: seeded.streamed.id }, ['streamed']],
    ['search: a client request id, with dates', { search: 'req_client_old', days: '60' }, ['old']],
    ['combined filters', { provider: 'openai', status_code: '200', user_path: '/acme' }, ['today']],
  ]
  for (const [name, params, expected] of cases) {
    test(`filter: ${name}`, async () => {
      const page = await list(params)
      expect(idsOf(page.entries)).toEqual(expected.map((k) => seeded[k].id))
      expect(page.total).toBe(expected.length)
    })
  }

  test('limit and offset page through, total stays', async () => {
    const first = await list({ limit: '2' })
    const second = await list({ limit: '2', offset: '2' })
    expect(first.entries).toHaveLength(2)
    expect(idsOf(second.entries)).toEqual([seeded.otherTeam.id, seeded.limited.id])
    expect(second).toMatchObject({ total: 5, limit: 2, offset: 2 })
  })

  const invalid: [string, string][] = [
    ['days=0', 'days'],
    ['days=x', 'days'],
    ['start_date=2026-02-30', 'start_date'],
    ['end_date=yesterday', 'end_date'],
    ['start_date=2026-11-10&end_date=2026-11-01', 'start_date'],
    ['requested_model=a&model=b', 'model'],
    ['method=G3T', 'method'],
    ['path=v1', 'path'],
    ['user_path=/a/../b', 'user_path'],
    [`session_id=${'s'.repeat(201)}`, 'session_id'],
    ['error_type=teapot', 'error_type'],
    ['status_code=abc', 'status_code'],
    ['status_code=1000', 'status_code'],
    ['stream=maybe', 'stream'],
    [`search=${'q'.repeat(201)}`, 'search'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=many', 'limit'],
    ['offset=-5', 'offset'],
    ['sort=asc', 'sort'],
    ['days=1&days=2', 'days'],
  ]
  for (const [params, param] of invalid) {
    test(`400 naming '${param}': ${params.slice(0, 45)}`, async () => {
      const res = await audit.get(`/audit/log?${params}`)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_query_parameter', provider: '', status_code: 400 })
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'param', 'provider', 'status_code', 'type'])
    })
  }
})

describe('GET /admin/audit/detail', () => {
  test('200: the full entry', async () => {
    const stored = makeEntry({ at: NOW, data: { request_body: { messages: [{ role: 'user', content: 'full body' }] } } })
    await seedAudit(gw.gateway.auditLog.writer, [stored])
    expect(await audit.detail(stored.id)).toEqual(stored)
    const listed = (await list({ search: stored.id })).entries[0]!
    expect(listed.data.request_body).toBeUndefined()
    expect(listed).toMatchObject({ bodies_omitted: true, conversation_payload: true })
  })

  test('400 without log_id', async () => {
    const res = await audit.get('/audit/detail')
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'log_id' })
  })

  test('404 for an unknown id', async () => {
    const res = await audit.get(`/audit/detail?log_id=${crypto.randomUUID()}`)
    expect(res.status).toBe(404)
    expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'audit_log_not_found', param: 'log_id', status_code: 404 })
  })

  test('401 without or with a wrong admin credential, on every audit endpoint', async () => {
    for (const path of ['/audit/log', `/audit/detail?log_id=${seeded.today.id}`, `/audit/conversation?log_id=${seeded.today.id}`, '/audit/stats', '/audit/writer-stats']) {
      for (const key of ['', 'wrong-key-123456']) {
        const res = await audit.get(path, key)
        expect(res.status).toBe(401)
        expect(res.body.error.type).toBe('authentication_error')
      }
    }
  })
})

describe('conversation, stats and writer counters', () => {
  test('conversation: the session around an entry, oldest first', async () => {
    const res = await audit.get(`/audit/conversation?log_id=${seeded.models.id}`)
    expect(res.status).toBe(200)
    expect(auditConversationSchema.parse(res.body)).toBeTruthy()
    expect(idsOf(res.body.entries)).toEqual([seeded.old.id, seeded.models.id, seeded.today.id])
    expect((await audit.get(`/audit/conversation?log_id=${crypto.randomUUID()}`)).status).toBe(404)
    expect((await audit.get(`/audit/conversation?log_id=${seeded.models.id}&limit=0`)).body.error.param).toBe('limit')
  })

  test('stats: counts and status classes per day', async () => {
    const res = await audit.get('/audit/stats?days=7')
    expect(res.status).toBe(200)
    const stats = auditStatsSchema.parse(res.body)
    expect(stats.interval).toBe('day')
    expect(stats.buckets).toHaveLength(7)
    const twoDaysAgo = stats.buckets.find((b) => b.start === new Date(TODAY - 2 * DAY).toISOString())
    expect(twoDaysAgo).toMatchObject({ requests: 1, status_4xx: 1 })
    expect(stats.summary.requests).toBeGreaterThanOrEqual(5)
    expect((await audit.get('/audit/stats?days=0')).status).toBe(400)
  })

  test('writer-stats: the counters', async () => {
    expect(auditWriterStatsSchema.parse(await audit.writerStats())).toMatchObject({ queue_capacity: 10_000, failed: 0, spill_bytes: 0 })
  })

  test('/ready shows how far the writers are behind: the lag, the queue and the spill files', async () => {
    const ready = (await (await fetch(`${gw.url}/ready`, { headers: { authorization: `Bearer ${MASTER}` } })).json()) as { audit: Record<string, unknown> }
    expect(ready.audit).toMatchObject({ lag_ms: expect.any(Number), queue_depth: expect.any(Number), spill_bytes: 0, spill_files: 0, usage_lag_ms: expect.any(Number) })
  })

  test('the OpenAPI document describes every audit endpoint with its parameters and schemas', async () => {
    const spec = (await (await fetch(`${gw.url}/openapi/json`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string }[]; responses?: Record<string, unknown> } }>
    }
    for (const path of ['/admin/audit/log', '/admin/audit/detail', '/admin/audit/conversation', '/admin/audit/stats', '/admin/audit/writer-stats'])
      expect(spec.paths[path]?.get).toBeDefined()
    const log = spec.paths['/admin/audit/log']!.get!
    // Every parameter the list accepts is documented, and nothing else.
    expect(log.parameters!.map((p) => p.name).sort()).toEqual([...LIST_PARAMS].sort())
    expect(JSON.stringify(log.responses?.['200'])).toContain('bodies_omitted')
    expect(spec.paths['/admin/audit/detail']!.get!.responses).toHaveProperty('404')
  })

  // Last: it breaks the store on purpose.
  test('500 GatewayError when the store fails', async () => {
    gw.gateway.stores.audit.get = () => Promise.reject(new Error('no such table: audit_log_payloads'))
    const res = await audit.get(`/audit/detail?log_id=${seeded.today.id}`)
    expect(res.status).toBe(500)
    expect(res.body.error).toMatchObject({ type: 'provider_error', code: 'internal_error', status_code: 500 })
    expect(res.body.error.message).not.toContain('audit_log_payloads')
  })
})
