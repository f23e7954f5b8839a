import { beforeEach, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import type { AuditLogQuery } from '../../audit/entry.ts'
import { makeEntry, SAMPLE_USAGE, rowsOf, T0 } from '../../../test/helpers/audit-entries.ts'
import type { AuditLogEntry } from '../../audit/entry.ts'
import { SEQ_PER_MS, SqliteAuditStore } from './audit-log.ts'
import { migrateSqlite } from './migrate.ts'
import { auditConversation } from '../../audit/conversation.ts'
import { auditStats } from '../../audit/stats.ts'

/** A reader that may read every entry, anywhere (the master key). */
const ANY_READER = { mayRead: () => true }

const MIN = 60_000
let db: Database
let store: SqliteAuditStore
const write = (entries: readonly AuditLogEntry[]) => store.writeBatch(rowsOf(entries))

beforeEach(() => {
  db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  store = new SqliteAuditStore(db)
})

const page = (q: Partial<AuditLogQuery>) => store.list({ limit: 100, offset: 0, ...q })
const ids = async (q: Partial<AuditLogQuery>) => (await page(q)).entries.map((e) => e.id)

describe('writing and reading', () => {
  test('detail returns the entry exactly as written, with usage', async () => {
    const entry = makeEntry({
      usage: SAMPLE_USAGE,
      data: {
        request_body: { model: 'fast', messages: [{ role: 'user', content: 'hi' }] },
        response_body: { object: 'chat.completion', choices: [{ message: { content: 'yo' } }] },
        attempts: [
          {
            seq: 1,
            kind: 'primary',
            model: 'gpt-4o-mini',
            provider_name: 'openai',
            provider_type: 'openai',
            started_at: 'x',
            duration_ns: 1,
            success: false,
            status_code: 500,
            response_body: { error: { message: 'down' } },
          },
        ],
      },
    })
    expect(await write([entry])).toBe(1)
    expect(await store.get(entry.id)).toEqual(entry)
    expect(await store.get('missing')).toBeUndefined()
  })

  test('list entries carry no heavy payloads and say whether they were a conversation', async () => {
    const chat = makeEntry({ data: { request_body: { messages: [{ role: 'user', content: 'secret prompt' }] }, response_body: { choices: [] } } })
    const models = makeEntry({ path: '/v1/models', method: 'GET', data: { response_body: { object: 'list', data: [] } } })
    await write([chat, models])
    const { entries } = await page({})
    expect(JSON.stringify(entries)).not.toContain('secret prompt')
    expect(entries.every((e) => e.bodies_omitted === true)).toBe(true)
    expect(entries.find((e) => e.id === chat.id)?.conversation_payload).toBe(true)
    expect(entries.find((e) => e.id === models.id)?.conversation_payload).toBe(false)
  })

  test('an id already stored is skipped: replays are idempotent', async () => {
    const entry = makeEntry()
    expect(await write([entry, makeEntry()])).toBe(2)
    expect(await write([entry])).toBe(0)
    expect((await page({})).total).toBe(2)
  })

  test('entries of the same millisecond get distinct keys in order, also beyond 1024 per millisecond', async () => {
    const batch = Array.from({ length: SEQ_PER_MS + 5 }, () => makeEntry({ at: T0 }))
    expect(await write(batch)).toBe(batch.length)
    const seqs = db
      .query<{ seq: number }, []>('SELECT seq FROM audit_log ORDER BY seq')
      .all()
      .map((r) => r.seq)
    expect(new Set(seqs).size).toBe(batch.length)
    expect(seqs[0]).toBe(T0 * SEQ_PER_MS)
    const listed = await store.list({ limit: 3, offset: 0 })
    expect(listed.entries.map((e) => e.id)).toEqual(
      batch
        .slice(-3)
        .reverse()
        .map((e) => e.id),
    )
  })

  test('a later batch continues after the keys stored in the same millisecond, and older entries fit between', async () => {
    const first = [makeEntry({ at: T0 }), makeEntry({ at: T0 })]
    await write(first)
    const later = [makeEntry({ at: T0 }), makeEntry({ at: T0 - 5 }), makeEntry({ at: T0 + 1 })]
    expect(await write(later)).toBe(3)
    const keyOf = new Map(
      db
        .query<{ id: string; seq: number }, []>('SELECT id, seq FROM audit_log')
        .all()
        .map((r) => [r.id, r.seq]),
    )
    expect([...first, ...later].map((e) => keyOf.get(e.id))).toEqual([T0 * SEQ_PER_MS, T0 * SEQ_PER_MS + 1, T0 * SEQ_PER_MS + 2, (T0 - 5) * SEQ_PER_MS, (T0 + 1) * SEQ_PER_MS])
  })
})

describe('filters', () => {
  test('newest first, with total, limit and offset', async () => {
    const batch = [0, 1, 2, 3, 4].map((i) => makeEntry({ at: T0 + i * MIN }))
    await write([batch[3]!, batch[0]!, batch[4]!, batch[1]!, batch[2]!])
    const first = await store.list({ limit: 2, offset: 0 })
    expect(first.entries.map((e) => e.id)).toEqual([batch[4]!.id, batch[3]!.id])
    expect(first.total).toBe(5)
    expect((await store.list({ limit: 2, offset: 4 })).entries.map((e) => e.id)).toEqual([batch[0]!.id])
  })

  test('time window: from inclusive, to exclusive', async () => {
    const [a, b, c] = [makeEntry({ at: T0 - 1 }), makeEntry({ at: T0 }), makeEntry({ at: T0 + MIN })]
    await write([a!, b!, c!])
    expect(await ids({ from: T0, to: T0 + MIN })).toEqual([b!.id])
  })

  test('each column filter', async () => {
    const base = makeEntry()
    const other = {
      requestedModel: makeEntry({ requested_model: 'smart' }),
      providerType: makeEntry({ provider: 'groq', provider_name: 'fastgroq' }),
      providerName: makeEntry({ provider: 'openai', provider_name: 'azure-east' }),
      method: makeEntry({ method: 'GET' }),
      path: makeEntry({ path: '/v1/responses' }),
      session: makeEntry({ session_id: 'sess-1' }),
      errorType: makeEntry({ error_type: 'rate_limit_error', status_code: 429 }),
      stream: makeEntry({ stream: true }),
    }
    await write([base, ...Object.values(other)])
    expect(await ids({ requestedModel: 'smart' })).toEqual([other.requestedModel.id])
    expect(await ids({ provider: 'groq' })).toEqual([other.providerType.id])
    expect(await ids({ provider: 'fastgroq' })).toEqual([other.providerType.id])
    expect(await ids({ provider: 'azure-east' })).toEqual([other.providerName.id])
    expect((await ids({ provider: 'openai' })).length).toBe(8)
    expect(await ids({ method: 'GET' })).toEqual([other.method.id])
    expect(await ids({ path: '/v1/responses' })).toEqual([other.path.id])
    expect(await ids({ sessionId: 'sess-1' })).toEqual([other.session.id])
    expect(await ids({ errorType: 'rate_limit_error' })).toEqual([other.errorType.id])
    expect(await ids({ statusCode: 429 })).toEqual([other.errorType.id])
    expect(await ids({ stream: true })).toEqual([other.stream.id])
    expect((await ids({ stream: false })).length).toBe(8)
    expect(await ids({ stream: true, statusCode: 429 })).toEqual([])
  })

  test('user_path is a subtree: the path itself and below it, not its siblings', async () => {
    const entries = ['/', '/acme', '/acme/team-a', '/acme/team-a/alice', '/acme-b', '/acmex', '/other'].map((p) => makeEntry({ user_path: p }))
    await write(entries)
    const paths = async (userPath: string) => (await page({ userPath })).entries.map((e) => e.user_path).sort()
    expect(await paths('/acme')).toEqual(['/acme', '/acme/team-a', '/acme/team-a/alice'])
    expect(await paths('/acme/team-a')).toEqual(['/acme/team-a', '/acme/team-a/alice'])
    expect((await page({})).total).toBe(7)
  })
})

describe('sessions and client request ids (found through the search index)', () => {
  test('a session id matches exactly: not another case, not a longer id, not the same words elsewhere', async () => {
    const a = makeEntry({ session_id: 'chat-42' })
    const others = [
      makeEntry({ session_id: 'Chat-42' }),
      makeEntry({ session_id: 'chat-420' }),
      makeEntry({ session_id: 'chat_42' }),
      makeEntry({ session_id: 'x', data: { error_message: 'chat 42 failed' } }),
    ]
    const b = makeEntry({ session_id: 'chat-42' })
    await write([a, ...others, b])
    expect(await ids({ sessionId: 'chat-42' })).toEqual([b.id, a.id])
    expect(await ids({ sessionId: 'Chat-42' })).toEqual([others[0]!.id])
    expect(await ids({ sessionId: 'chat_42' })).toEqual([others[2]!.id])
    expect(await ids({ sessionId: 'chat-42', from: Date.parse(b.timestamp) })).toEqual([b.id])
    expect(await ids({ sessionId: 'chat-4' })).toEqual([])
  })

  test('a session id without letters or digits (no words to look up) is still found', async () => {
    const odd = makeEntry({ session_id: '--::--' })
    await write([odd, makeEntry({ session_id: '--' }), makeEntry()])
    expect(await ids({ sessionId: '--::--' })).toEqual([odd.id])
    expect((await auditConversation(store, odd.id, 10, ANY_READER))!.entries.map((e) => e.id)).toEqual([odd.id])
  })

  test('a UUID search finds a client request id or session id equal to it, whatever words other entries share', async () => {
    const uuid = '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d'
    const byRequest = makeEntry({ request_id: uuid })
    const bySession = makeEntry({ session_id: uuid.toUpperCase() })
    // The same words in another order, and in a longer id: candidates of the search index, not matches.
    const decoys = [makeEntry({ session_id: '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2e' }), makeEntry({ request_id: `x-${uuid}-y` })]
    await write([byRequest, bySession, ...decoys])
    expect(await ids({ search: uuid })).toEqual([byRequest.id])
    expect((await ids({ search: uuid.toUpperCase() })).sort()).toEqual([byRequest.id, bySession.id].sort())
  })
})

describe('query plans: every filter is served by an index', () => {
  /** The plan of every statement `list` runs for the query, as EXPLAIN QUERY PLAN reports it. */
  async function plans(q: Partial<AuditLogQuery>): Promise<string[]> {
    const statements: { sql: string; params: unknown[] }[] = []
    const query = db.query.bind(db)
    db.query = ((sql: string) => {
      const statement = query(sql)
      return {
        all: (...params: unknown[]) => (statements.push({ sql, params }), statement.all(...(params as []))),
        get: (...params: unknown[]) => (statements.push({ sql, params }), statement.get(...(params as []))),
      }
    }) as typeof db.query
    try {
      await page(q)
    } finally {
      db.query = query as typeof db.query
    }
    return statements.flatMap(({ sql, params }) =>
      db
        .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(params as []))
        .map((r) => r.detail),
    )
  }
  const fullScan = /^SCAN audit_log( |$)/

  test.each<[string, Partial<AuditLogQuery>, RegExp]>([
    ['the window', { from: T0 }, /COVERING INDEX audit_log_ts/],
    ['a model', { from: T0, requestedModel: 'fast' }, /INDEX audit_log_model_ts/],
    ['a model and status 200', { from: T0, requestedModel: 'fast', statusCode: 200 }, /COVERING INDEX audit_log_model_ts/],
    ['a provider', { from: T0, provider: 'openai' }, /COVERING INDEX audit_log_ts/],
    ['method and path', { from: T0, method: 'GET', path: '/v1/models' }, /COVERING INDEX audit_log_ts/],
    ['a user path', { from: T0, userPath: '/acme' }, /INDEX audit_log_user_path_ts/],
    ['an error status', { from: T0, statusCode: 429 }, /INDEX audit_log_status_ts/],
    ['status 200', { from: T0, statusCode: 200 }, /COVERING INDEX audit_log_ts/],
    ['an error type', { from: T0, errorType: 'rate_limit_error' }, /INDEX audit_log_error_type_ts/],
    ['a whole session', { sessionId: 'chat-42' }, /SCAN audit_log_search VIRTUAL TABLE/],
    ['a label', { from: T0, label: 'canary' }, /PRIMARY KEY \(label=\? AND seq>\?\)/],
    ['a label and a status', { from: T0, label: 'canary', statusCode: 503 }, /INDEX audit_log_status_ts/],
    ['a UUID', { search: '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d' }, /MULTI-INDEX OR/],
    ['words', { from: T0, search: 'rate limit' }, /SCAN audit_log_search VIRTUAL TABLE/],
    ['words and a model', { from: T0, search: 'rate limit', requestedModel: 'fast' }, /INDEX audit_log_model_ts/],
  ])('%s', async (_, q, expected) => {
    const plan = await plans(q)
    expect(plan.filter((line) => fullScan.test(line))).toEqual([])
    expect(plan.some((line) => expected.test(line))).toBe(true)
  })
})

describe('labels', () => {
  test('label filter: exact, within the window, with other filters; entries without labels never match', async () => {
    const a = makeEntry({ at: T0, data: { labels: ['checkout', 'team:payments'] } })
    const b = makeEntry({ at: T0 + MIN, data: { labels: ['checkout'] }, status_code: 500 })
    const c = makeEntry({ at: T0 + 2 * MIN, data: { labels: ['checkoutx'], user_agent: '"labels":["checkout"]' } })
    const d = makeEntry({ at: T0 + 3 * MIN, data: { labels: [] } })
    await write([a, b, c, d])
    expect(await ids({ label: 'checkout' })).toEqual([b.id, a.id])
    expect(await ids({ label: 'team:payments' })).toEqual([a.id])
    expect(await ids({ label: 'checkout', statusCode: 500 })).toEqual([b.id])
    expect(await ids({ label: 'checkout', from: T0 + 1 })).toEqual([b.id])
    expect(await ids({ label: 'checkout', to: T0 + 1 })).toEqual([a.id])
    expect(await ids({ label: 'check' })).toEqual([])
    expect((await store.get(a.id))!.data.labels).toEqual(['checkout', 'team:payments'])
  })

  test('deleting entries removes their label rows', async () => {
    await write([makeEntry({ at: T0 - 10, data: { labels: ['old'] } }), makeEntry({ at: T0, data: { labels: ['new'] } })])
    expect(await store.deleteOlderThan(T0, 100)).toBe(1)
    expect(db.query<{ label: string }, []>('SELECT label FROM audit_log_labels').all()).toEqual([{ label: 'new' }])
  })
})

describe('search', () => {
  test('a UUID matches id, request_id or session_id exactly (any case)', async () => {
    const byId = makeEntry()
    const byRequest = makeEntry({ request_id: '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d' })
    const bySession = makeEntry({ session_id: '6f1d2c3b-4a59-4e8f-8d7c-6b5a4f3e2d1c' })
    await write([byId, byRequest, bySession, makeEntry()])
    expect(await ids({ search: byId.id.toUpperCase() })).toEqual([byId.id])
    expect(await ids({ search: '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d' })).toEqual([byRequest.id])
    expect(await ids({ search: '6F1D2C3B-4A59-4E8F-8D7C-6B5A4F3E2D1C' })).toEqual([bySession.id])
  })

  test('words match in order at word starts, across the searchable fields, case- and accent-insensitively', async () => {
    const limited = makeEntry({
      error_type: 'rate_limit_error',
      status_code: 429,
      data: { error_message: "Upstream rate limit (provider 'openai', HTTP 429): Rate limit reached" },
    })
    const deepseek = makeEntry({ requested_model: 'deepseek/deepseek-reasoner', resolved_model: 'deepseek/deepseek-reasoner', provider: 'deepseek', provider_name: 'deepseek' })
    const clientId = makeEntry({ request_id: 'req_7Kx9Tz' })
    const accented = makeEntry({ data: { error_message: 'Modèle indisponible' } })
    const event = makeEntry({ data: { event_type: 'key.revoked' } })
    await write([limited, deepseek, clientId, accented, event, makeEntry()])
    expect(await ids({ search: 'Rate Limit' })).toEqual([limited.id])
    expect(await ids({ search: 'limit rate' })).toEqual([])
    expect(await ids({ search: 'deepseek-reas' })).toEqual([deepseek.id])
    expect(await ids({ search: 'req_7kx9' })).toEqual([clientId.id])
    expect(await ids({ search: 'modele' })).toEqual([accented.id])
    expect(await ids({ search: 'key.revoked' })).toEqual([event.id])
    expect((await page({ search: 'openai' })).total).toBe(5)
  })

  test('search combines with the window and other filters, newest first', async () => {
    const old = makeEntry({ at: T0 - 10 * MIN, data: { error_message: 'engine overloaded' }, error_type: 'provider_error', status_code: 503 })
    const newer = makeEntry({ at: T0 + MIN, data: { error_message: 'engine overloaded' }, error_type: 'provider_error', status_code: 503 })
    const newest = makeEntry({ at: T0 + 2 * MIN, data: { error_message: 'engine overloaded' }, error_type: 'provider_error', status_code: 503, stream: true })
    await write([newest, old, newer])
    expect(await ids({ search: 'overloaded' })).toEqual([newest.id, newer.id, old.id])
    expect(await ids({ search: 'overloaded', from: T0 })).toEqual([newest.id, newer.id])
    expect(await ids({ search: 'overloaded', to: T0 + 2 * MIN })).toEqual([newer.id, old.id])
    const filtered = await page({ search: 'overloaded', stream: true })
    expect(filtered.entries.map((e) => e.id)).toEqual([newest.id])
    expect(filtered.total).toBe(1)
    expect((await store.list({ search: 'overloaded', limit: 1, offset: 1 })).entries.map((e) => e.id)).toEqual([newer.id])
  })

  test('a term without letters or digits falls back to a substring scan', async () => {
    const v1 = makeEntry({ path: '/v1/chat/completions' })
    await write([v1])
    expect(await ids({ search: '/' })).toEqual([v1.id])
    expect(await ids({ search: '%' })).toEqual([])
  })
})

describe('conversation', () => {
  test('a session: the anchor with entries around it, oldest first, truncated when more exist', async () => {
    const session = Array.from({ length: 9 }, (_, i) => makeEntry({ session_id: 's-9', at: T0 + i * MIN }))
    await write([...session, makeEntry({ session_id: 'other' })])
    const thread = (await auditConversation(store, session[4]!.id, 5, ANY_READER))!
    expect(thread.anchor_id).toBe(session[4]!.id)
    expect(thread.entries.map((e) => e.id)).toEqual(session.slice(2, 7).map((e) => e.id))
    expect(thread.truncated).toBe(true)
    const whole = (await auditConversation(store, session[0]!.id, 40, ANY_READER))!
    expect(whole.entries).toHaveLength(9)
    expect(whole.truncated).toBe(false)
    expect(await auditConversation(store, 'missing', 40, ANY_READER)).toBeUndefined()
  })

  test('without a session: the previous_response_id chain both ways', async () => {
    const respond = (id: string, previous?: string, at = T0) =>
      makeEntry({
        at,
        path: '/v1/responses',
        data: { request_body: { input: 'hi', ...(previous ? { previous_response_id: previous } : {}) }, response_body: { id, object: 'response', output: [] } },
      })
    const first = respond('resp_1', undefined, T0)
    const second = respond('resp_2', 'resp_1', T0 + MIN)
    const third = respond('resp_3', 'resp_2', T0 + 2 * MIN)
    const unrelated = respond('resp_x', undefined, T0 + 3 * MIN)
    await write([first, second, third, unrelated])
    const thread = (await auditConversation(store, second.id, 40, ANY_READER))!
    expect(thread.entries.map((e) => e.id)).toEqual([first.id, second.id, third.id])
    expect(thread.entries[1]!.data.request_body).toEqual({ input: 'hi', previous_response_id: 'resp_1' })
    expect((await auditConversation(store, third.id, 2, ANY_READER))!).toMatchObject({ truncated: true })
  })
})

describe('stats and retention', () => {
  test('buckets count status classes and latency; security events are not requests', async () => {
    const hour = 3_600_000
    const from = Date.UTC(2026, 10, 20)
    await write([
      makeEntry({ at: from + 10, status_code: 200, duration_ns: 10e6 }),
      makeEntry({ at: from + 20, status_code: 429, duration_ns: 30e6 }),
      makeEntry({ at: from + hour + 5, status_code: 502, duration_ns: 5e6 }),
      makeEntry({ at: from + hour + 6, status_code: 101 }),
      makeEntry({ at: from + 30, status_code: 401, data: { event_type: 'dashboard.sign_in_failed' } }),
    ])
    const stats = await auditStats(store, { from, to: from + 3 * hour, bucketMs: hour })
    expect(stats.interval).toBe('hour')
    expect(stats.buckets).toHaveLength(3)
    expect(stats.buckets[0]).toMatchObject({
      start: new Date(from).toISOString(),
      requests: 2,
      status_2xx: 1,
      status_4xx: 1,
      status_5xx: 0,
      status_other: 0,
      avg_duration_ms: 20,
      max_duration_ms: 30,
    })
    expect(stats.buckets[1]).toMatchObject({ requests: 2, status_5xx: 1, status_other: 1 })
    expect(stats.buckets[2]).toMatchObject({ requests: 0 })
    expect(stats.summary).toMatchObject({ requests: 4, errors: 2, success_rate: 0.5 })
  })

  test('deleting old entries removes their payloads and search rows too, in batches', async () => {
    const old = Array.from({ length: 5 }, (_, i) => makeEntry({ at: T0 - 100 + i, data: { request_body: { input: 'old words' }, error_message: 'old words' } }))
    const fresh = makeEntry({ at: T0, data: { request_body: { input: 'new' } } })
    await write([...old, fresh])
    expect(await store.deleteOlderThan(T0, 2)).toBe(2)
    expect(await store.deleteOlderThan(T0, 100)).toBe(3)
    expect(await store.deleteOlderThan(T0, 100)).toBe(0)
    expect(db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM audit_log_payloads').get()!.n).toBe(1)
    expect((await page({ search: 'old words' })).total).toBe(0)
    expect(await ids({})).toEqual([fresh.id])
  })
})
