/**
 * The PostgreSQL stores against a real server (a throwaway cluster): migrations under the advisory lock (two
 * replicas starting together), keys, workflows, limits, prices, usage, threads, and the audit log (idempotent
 * batches, every filter, the search, detail with bodies, partitions dropped by retention).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { silentLogger } from '../../src/log/logger.ts'
import { listStatement, PostgresAuditStore } from '../../src/stores/postgres/audit-log.ts'
import { PostgresKeyStore } from '../../src/stores/postgres/api-keys.ts'
import { applyPgMigrations, connectPostgres, drizzleOn } from '../../src/stores/postgres/client.ts'
import { PostgresLease } from '../../src/stores/postgres/lease.ts'
import { postgresLimitStore } from '../../src/stores/postgres/limits.ts'
import { PARTITIONED_TABLES, postgresMigrations } from '../../src/stores/postgres/migrations.ts'
import { dropPartitionsBefore, ensurePartitions } from '../../src/stores/postgres/partitions.ts'
import { postgresResponseThreadStore } from '../../src/stores/postgres/response-threads.ts'
import { postgresPriceStore, postgresUsageStore } from '../../src/stores/postgres/usage.ts'
import { postgresWorkflowStore } from '../../src/stores/postgres/workflows.ts'
import { makeEntry, rowsOf, T0 } from '../helpers/audit-entries.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'
import { usageRecord } from '../helpers/store-records.ts'
import type { UsageRecord } from '../../src/usage/record.ts'

const DAY = 86_400_000
let sql: SQL
const open: SQL[] = []

beforeAll(async () => {
  if (!postgresAvailable()) return
  const url = await (await sharedPostgres()).freshDatabase()
  // Two replicas migrate at once: the advisory lock makes one apply, the other find nothing to do.
  const [a, b] = [connectPostgres({ url, poolSize: 4, tls: undefined }), connectPostgres({ url, poolSize: 4, tls: undefined })]
  open.push(a, b)
  const [doneA, doneB] = await Promise.all([applyPgMigrations(a, postgresMigrations, silentLogger), applyPgMigrations(b, postgresMigrations, silentLogger)])
  expect([...doneA, ...doneB].sort()).toEqual(postgresMigrations.map((m) => m.tag))
  sql = a
}, 60_000)
afterAll(async () => {
  for (const s of open) await s.close()
})

describe.skipIf(!postgresAvailable())('PostgreSQL stores', () => {
  test('keys: insert, list with search and user path, update, revoke once', async () => {
    const keys = new PostgresKeyStore(drizzleOn(sql))
    const base = {
      description: 'ci bot',
      keyHash: '',
      redactedKey: 'sk-gw-...abcd',
      userPath: '/team/a',
      allowedModels: ['gpt-4o'],
      role: null,
      expiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
      createdBy: 'master',
    }
    await keys.insert({ ...base, id: 'k1', name: 'one', keyHash: 'h1' })
    await keys.insert({ ...base, id: 'k2', name: 'two_50%', keyHash: 'h2', userPath: '/team/b', allowedModels: null, createdAt: '2026-01-02T00:00:00.000Z' })
    expect((await keys.loadAll()).length).toBe(2)
    expect((await keys.list({ limit: 10, offset: 0, includeRevoked: false, search: '50%' })).keys.map((k) => k.id)).toEqual(['k2'])
    expect((await keys.list({ limit: 10, offset: 0, includeRevoked: false, userPath: '/team/a' })).total).toBe(1)
    const updated = await keys.update('k1', { name: 'uno', allowedModels: null }, '2026-01-03T00:00:00.000Z')
    expect(updated).toMatchObject({ name: 'uno', allowedModels: null, updatedAt: '2026-01-03T00:00:00.000Z' })
    expect(await keys.revoke('k1', '2026-01-04T00:00:00.000Z')).toMatchObject({ changed: true })
    expect(await keys.revoke('k1', '2026-01-05T00:00:00.000Z')).toMatchObject({ changed: false, record: { revokedAt: '2026-01-04T00:00:00.000Z' } })
    expect(await keys.update('k1', { name: 'x' }, '2026-01-06T00:00:00.000Z')).toBeUndefined()
    expect((await keys.list({ limit: 10, offset: 0, includeRevoked: false })).keys.map((k) => k.id)).toEqual(['k2'])
    expect(await keys.revoke('nope', '2026-01-05T00:00:00.000Z')).toBeUndefined()
  })

  test('keys: the legacy dashboard_enabled column is true only for an unscoped admin, and follows changes', async () => {
    const keys = new PostgresKeyStore(drizzleOn(sql))
    const legacy = async (id: string) => ((await sql`SELECT dashboard_enabled AS d FROM api_keys WHERE id = ${id}`) as { d: boolean }[])[0]?.d
    const base = {
      description: '',
      redactedKey: 'r',
      allowedModels: null,
      expiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
      createdBy: 'master',
    }
    await keys.insert({ ...base, id: 'legacy-1', name: 'a', keyHash: 'legacy-h1', userPath: null, role: 'admin' })
    await keys.insert({ ...base, id: 'legacy-2', name: 'b', keyHash: 'legacy-h2', userPath: '/acme', role: 'admin' })
    expect([await legacy('legacy-1'), await legacy('legacy-2')]).toEqual([true, false])
    await keys.update('legacy-1', { role: 'viewer' }, '2026-01-02T00:00:00.000Z')
    await keys.update('legacy-2', { userPath: null }, '2026-01-02T00:00:00.000Z')
    expect([await legacy('legacy-1'), await legacy('legacy-2')]).toEqual([false, true])
  })

  test('workflows: a new version deactivates the previous one', async () => {
    const wf = postgresWorkflowStore(drizzleOn(sql))
    const v = (version: number) => ({
      id: 'wf_1',
      versionId: `wfv_${version}`,
      version,
      name: 'main',
      description: '',
      scope: { model: 'fast' },
      features: { audit: true },
      plugins: {},
      active: true,
      createdAt: `2026-01-0${version}T00:00:00.000Z`,
      createdBy: 'master',
    })
    await wf.insertVersion(v(1) as never)
    await wf.insertVersion(v(2) as never)
    expect((await wf.listActive()).map((x) => x.versionId)).toEqual(['wfv_2'])
    expect((await wf.history('wf_1')).map((x) => [x.version, x.active])).toEqual([
      [2, true],
      [1, false],
    ])
    expect((await wf.latestByName('main'))?.scope).toEqual({ model: 'fast' })
    expect(await wf.deactivate('wf_1')).toBe(true)
    expect(await wf.listActive()).toEqual([])
  })

  test('limits, prices and Responses threads', async () => {
    const db = drizzleOn(sql)
    const limits = postgresLimitStore(db)
    await limits.saveBudget({ id: 'b1', scope: { type: 'global' }, window: 'day', limit_usd: 5, created_at: '2026-01-01T00:00:00.000Z' } as never)
    expect((await limits.budgets()).map((b) => b.id)).toEqual(['b1'])
    expect(await limits.deleteBudget('b1')).toBe(true)
    expect(await limits.deleteBudget('b1')).toBe(false)
    const prices = postgresPriceStore(db)
    await prices.set('openai/gpt-4o', { input: 1, output: 2 })
    await prices.set('openai/gpt-4o', { input: 3, output: 4 })
    expect(await prices.all()).toEqual({ 'openai/gpt-4o': { input: 3, output: 4 } })
    expect(await prices.delete('openai/gpt-4o')).toBe(true)
    const threads = postgresResponseThreadStore(db)
    const owner = { principalId: 'key_1', userPath: '/team' }
    const thread = { id: 'resp_1', owner, providerName: 'openai', native: false, items: [{ role: 'user', content: 'hi' }], response: { id: 'resp_1', object: 'response' } }
    await threads.save(thread)
    expect(await threads.get('resp_1', owner)).toEqual(thread)
    expect(await threads.delete('resp_1', owner)).toBe(true)
    expect(await threads.get('resp_1', owner)).toBeUndefined()
  })

  test('usage: idempotent batches, totals and breakdowns (labels counted once each)', async () => {
    const usage = postgresUsageStore(sql)
    const record = (id: string, over: Partial<UsageRecord> = {}) =>
      usageRecord(id, { user_path: '/a', model: 'gpt-4o', requested_model: 'fast', cached_tokens: 0, cost_usd: 0.5, labels: undefined, ...over })

    await usage.writeBatch([record('u1', { labels: ['x', 'y'] }), record('u2', { model: 'gpt-4o-mini', cache_hit: true })])
    await usage.writeBatch([record('u1')])
    const totals = await usage.totals({ fromMs: T0 - 1, toMs: T0 + 1 })
    expect(totals).toMatchObject({ requests: 2, input_tokens: 20, total_tokens: 30, cost_usd: 1, cache_hits: 1 })
    const byModel = await usage.breakdown({ fromMs: T0 - 1, toMs: T0 + 1 }, 'model')
    expect(byModel.map((r) => [r.model, r.requests])).toEqual([
      ['gpt-4o', 1],
      ['gpt-4o-mini', 1],
    ])
    const byLabel = await usage.breakdown({ fromMs: T0 - 1, toMs: T0 + 1 }, 'label', 'day')
    expect(byLabel.map((r) => [r.label, r.day, r.requests]).sort()).toEqual([
      ['', '2026-11-20', 1],
      ['x', '2026-11-20', 1],
      ['y', '2026-11-20', 1],
    ])
  })

  test('audit: idempotent batches, filters, search, detail with bodies, conversation lookups', async () => {
    const audit = new PostgresAuditStore(sql)
    await ensurePartitions(sql, T0, T0 - 3 * DAY)
    const entries = [
      makeEntry({
        at: T0,
        requested_model: 'fast',
        status_code: 200,
        user_path: '/team/a',
        session_id: 's1',
        data: { labels: ['nightly'], request_body: { model: 'fast', messages: [{ role: 'user', content: 'hello' }] } } as never,
      }),
      makeEntry({
        at: T0 + 1000,
        requested_model: 'smart',
        status_code: 429,
        error_type: 'rate_limit_error',
        data: { error_message: 'Rate limit reached for requests' } as never,
        stream: true,
        session_id: 's1',
      }),
      makeEntry({ at: T0 + 2000, requested_model: 'gpt-4o-mini', provider: 'anthropic', provider_name: 'claude', user_path: '/team/ab', path: '/v1/messages' }),
      makeEntry({ at: T0 - 2 * DAY, requested_model: 'old' }),
    ]
    expect(await audit.writeBatch(rowsOf(entries.slice(1)))).toBe(3)
    // A batch with stored entries stores only the new one, with its labels and body (checked below).
    expect(await audit.writeBatch(rowsOf(entries))).toBe(1)
    expect(await audit.writeBatch(rowsOf(entries))).toBe(0) // a replay stores nothing twice
    const ids = async (q: object) => (await audit.list({ limit: 50, offset: 0, ...q })).entries.map((e) => e.requested_model)
    expect(await ids({})).toEqual(['gpt-4o-mini', 'smart', 'fast', 'old'])
    expect(await ids({ requestedModel: 'smart' })).toEqual(['smart'])
    expect(await ids({ provider: 'claude' })).toEqual(['gpt-4o-mini'])
    expect(await ids({ statusCode: 429 })).toEqual(['smart'])
    expect(await ids({ errorType: 'rate_limit_error' })).toEqual(['smart'])
    expect(await ids({ stream: true })).toEqual(['smart'])
    expect(await ids({ userPath: '/team/a' })).toEqual(['fast'])
    expect(await ids({ sessionId: 's1' })).toEqual(['smart', 'fast'])
    expect(await ids({ path: '/v1/messages' })).toEqual(['gpt-4o-mini'])
    expect(await ids({ label: 'nightly' })).toEqual(['fast'])
    expect(await ids({ from: T0 - DAY, to: T0 + 1500 })).toEqual(['smart', 'fast'])
    expect(await ids({ search: 'rate limit' })).toEqual(['smart'])
    // Every entry's resolved model is openai/gpt-4o-mini (makeEntry's default), a searchable field as on SQLite.
    expect(await ids({ search: 'gpt-4' })).toEqual(['gpt-4o-mini', 'smart', 'fast', 'old'])
    expect(await ids({ search: 'v1 messages' })).toEqual(['gpt-4o-mini'])
    expect(await ids({ search: entries[2]!.id })).toEqual(['gpt-4o-mini'])
    expect(await ids({ search: '/' })).toHaveLength(4)
    const page = await audit.list({ limit: 1, offset: 1 })
    expect(page.total).toBe(4)
    expect(page.entries[0]).toMatchObject({ requested_model: 'smart', bodies_omitted: true, stream: true })
    expect(JSON.stringify((await audit.list({ limit: 10, offset: 0, requestedModel: 'fast' })).entries)).not.toContain('hello')
    const detail = await audit.get(entries[0]!.id)
    expect(detail?.data.request_body).toEqual({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] })
    const anchor = await audit.threadEntry(entries[1]!.id)
    expect((await audit.sessionEntries('s1', anchor!, 'before', 10, { principalId: anchor!.entry.principal_id })).map((t) => t.entry.requested_model)).toEqual(['fast'])
    const stats = await audit.statsRows({ from: T0, to: T0 + 3000, bucketMs: 1000 })
    expect(stats.map((r) => [r.bucket, r.requests, r.status_4xx]).sort()).toEqual([
      [0, 1, 0],
      [1, 1, 1],
      [2, 1, 0],
    ])
  })

  test('audit: a batch larger than one statement is stored whole, and once', async () => {
    const audit = new PostgresAuditStore(sql)
    await ensurePartitions(sql, T0)
    const body = 'x'.repeat(4_000)
    // About 1.2 MB of rows: three statements of at most 512 KB.
    const entries = Array.from({ length: 300 }, (_, i) =>
      makeEntry({ at: T0 + 10_000 + i, requested_model: 'big-batch', data: { labels: ['bulk'], request_body: { n: i, body } } as never }),
    )
    expect(await audit.writeBatch(rowsOf(entries.slice(0, 299)))).toBe(299)
    expect(await audit.writeBatch(rowsOf(entries))).toBe(1) // the last statement's new entry; the others are skipped
    const listed = await audit.list({ limit: 1, offset: 0, requestedModel: 'big-batch', label: 'bulk' })
    expect(listed.total).toBe(300)
    expect((await audit.get(entries[299]!.id))?.data.request_body).toEqual({ n: 299, body })
  })

  test('audit: a search past its count cap reads its page down the time index, never the search index', async () => {
    const audit = new PostgresAuditStore(sql)
    const from = T0 + 20 * DAY
    await ensurePartitions(sql, from + DAY, from)
    // 3,000 entries 20 s apart, one in 50 a DeepSeek reasoner (the phrase `'deepseek' <-> 'reas':*`); with fewer,
    // even a statement that allows the search index plans its page down the time index, and the test proves nothing.
    const entries = Array.from({ length: 3000 }, (_, i) => makeEntry({ at: from + i * 20_000, requested_model: i % 50 === 0 ? 'deepseek/deepseek-reasoner' : `model-${i % 7}` }))
    await audit.writeBatch(rowsOf(entries))
    await sql`ANALYZE audit_log`
    const reasoners = entries.filter((e) => e.requested_model.startsWith('deepseek')).reverse()
    const q = { search: 'deepseek-reas', from, to: from + DAY, countUpTo: 5, limit: 5, offset: 10 }
    const page = await audit.list(q)
    expect([page.total, page.total_relation]).toEqual([5, 'gte'])
    expect(page.entries.map((e) => e.id)).toEqual(reasoners.slice(10, 15).map((e) => e.id))
    // With index scans off, a bitmap of the search index is the cheapest way to the page for a planner that can
    // reach it; the at-cap branch must not (its estimate of a phrase's matches was 25 times too low at 1M entries).
    const { text, params } = listStatement(q)
    const plan = await sql.begin(async (tx) => {
      await tx`SET LOCAL enable_indexscan = off`
      await tx`SET LOCAL enable_seqscan = off`
      return (await tx.unsafe(`EXPLAIN (FORMAT JSON) ${text}`, params))[0]['QUERY PLAN']
    })
    // Indexes read outside the CTE `m` (the matches counted up to the cap, which may use the search index).
    type Node = { 'Index Name'?: string; 'Subplan Name'?: string; Plans?: Node[] }
    const indexes = (n: Node): string[] => (n['Subplan Name'] === 'CTE m' ? [] : [n['Index Name'] ?? [], ...(n.Plans ?? []).flatMap(indexes)].flat())
    const [root] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: Node }[]
    const read = indexes(root!.Plan)
    expect(read.length).toBeGreaterThan(0)
    expect(read.filter((name) => name.endsWith('_search_idx'))).toEqual([])
    await sql`DELETE FROM audit_log WHERE ts >= ${from}`
  })

  test('the lease: a job runs on one connection at a time; the other is skipped, not queued', async () => {
    const [one, two] = [new PostgresLease(open[0]!), new PostgresLease(open[1]!)]
    let release!: () => void
    let started!: () => void
    const running = new Promise<void>((r) => (started = r))
    const holding = one.runExclusive('job', () => {
      started()
      return new Promise<string>((r) => (release = () => r('first')))
    })
    // Held once the job runs (a fixed 50 ms sleep lost the race on a loaded machine).
    await running
    expect(await two.runExclusive('job', async () => 'second')).toBeUndefined()
    expect(await two.runExclusive('other-job', async () => 'other')).toBe('other')
    release()
    expect(await holding).toBe('first')
    expect(await two.runExclusive('job', async () => 'second')).toBe('second')
  })

  test('partitions: a week at a time, made around the day partitions of an older release; retention drops both', async () => {
    const db = connectPostgres({ url: await (await sharedPostgres()).freshDatabase(), poolSize: 2, tls: undefined })
    open.push(db)
    await applyPgMigrations(db, postgresMigrations, silentLogger)
    const monday = Date.UTC(2026, 0, 5)
    // The release before made day partitions: here for Wednesday and Thursday.
    for (const day of [monday + 2 * DAY, monday + 3 * DAY]) {
      const name = new Date(day).toISOString().slice(0, 10).replaceAll('-', '')
      for (const table of PARTITIONED_TABLES) await db.unsafe(`CREATE TABLE ${table}_p${name} PARTITION OF ${table} FOR VALUES FROM (${day}) TO (${day + DAY})`)
    }
    const partitions = async () =>
      (
        await db`SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'audit_log'::regclass AND c.relname <> 'audit_log_default' ORDER BY 1`
      ).map((r: { name: string; bound: string }) => `${r.name} ${r.bound.replace(/[^0-9 ]/g, '').trim()}`)
    // From the week before to the week of Wednesday + 3 days: whole weeks, and the days around the day partitions.
    expect(await ensurePartitions(db, monday + 2 * DAY, monday - 7 * DAY)).toBe(3 * 3)
    expect(await partitions()).toEqual([
      `audit_log_p20260107 ${monday + 2 * DAY}  ${monday + 3 * DAY}`,
      `audit_log_p20260108 ${monday + 3 * DAY}  ${monday + 4 * DAY}`,
      `audit_log_w20251229 ${monday - 7 * DAY}  ${monday}`,
      `audit_log_w20260105 ${monday}  ${monday + 2 * DAY}`,
      `audit_log_w20260109 ${monday + 4 * DAY}  ${monday + 7 * DAY}`,
    ])
    expect(await ensurePartitions(db, monday + 2 * DAY, monday - 7 * DAY)).toBe(0)
    const audit = new PostgresAuditStore(db)
    const entries = [monday + DAY, monday + 2 * DAY + 1, monday + 5 * DAY].map((at) => makeEntry({ at, data: { labels: ['l'] } }))
    expect(await audit.writeBatch(rowsOf(entries))).toBe(3)
    const where = await db`SELECT tableoid::regclass::text AS part FROM audit_log ORDER BY ts`
    expect(where.map((r: { part: string }) => r.part)).toEqual(['audit_log_w20260105', 'audit_log_p20260107', 'audit_log_w20260109'])
    // Retention: every partition that ends by the cutoff goes whole, with its payloads and labels.
    expect(await dropPartitionsBefore(db, monday + 4 * DAY)).toBe(2)
    expect(await partitions()).toEqual([`audit_log_w20260109 ${monday + 4 * DAY}  ${monday + 7 * DAY}`])
    const [left] = await db`SELECT (SELECT count(*) FROM audit_log_labels)::int AS labels, (SELECT count(*) FROM pg_class WHERE relname ~ '_[pw]2026010[5-8]$')::int AS tables`
    expect(left).toEqual({ labels: 1, tables: 0 })
  })

  test('retention: whole partitions past the cutoff are dropped, the rest deleted row by row', async () => {
    const audit = new PostgresAuditStore(sql)
    const before = (await audit.list({ limit: 50, offset: 0 })).total
    // The entry two days before T0 lies in T0's week, whose partition ends after the cutoff: deleted row by row
    // (the test above drops whole partitions).
    expect(await audit.deleteOlderThan(T0 - DAY, 100)).toBe(1)
    expect(await dropPartitionsBefore(sql, T0 - DAY)).toBe(0)
    expect((await audit.list({ limit: 50, offset: 0 })).total).toBe(before - 1)
    // Rows before a cutoff inside a day are deleted, with their payloads and labels.
    expect(await audit.deleteOlderThan(T0 + 500, 100)).toBe(1)
    expect((await audit.list({ limit: 50, offset: 0, label: 'nightly' })).total).toBe(0)
    const [orphans] = await sql`SELECT count(*)::int AS n FROM audit_log_payloads p WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.id = p.id)`
    expect(orphans.n).toBe(0)
  })
})
