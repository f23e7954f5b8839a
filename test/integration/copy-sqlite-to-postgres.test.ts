/**
 * The copy from SQLite into PostgreSQL against a real throwaway PostgreSQL: everything arrives, an interrupted
 * run continues where it stopped, and running it again (also with --restart, through the real command) copies
 * nothing twice.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditLogEntry } from '../../src/audit/entry.ts'
import { loadConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { workflowVersion } from '../contract/stores.contract.ts'
import { keyRecord, usageRecord } from '../helpers/store-records.ts'
import { copySqliteToPostgres, type CopyProgress } from '../../src/stores/copy-sqlite-to-postgres.ts'
import { openStores } from '../../src/stores/open.ts'
import type { Stores } from '../../src/stores/types.ts'
import { makeEntry } from '../helpers/audit-entries.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'

const ROOT = join(import.meta.dir, '..', '..')
const T0 = Date.UTC(2026, 10, 20, 12)
const AUDIT = 1300
const USAGE = 700
let dir: string
let source: string
let target: string
const entries: AuditLogEntry[] = []

const config = () => loadConfig({ env: {}, cwd: '/nonexistent-dir-for-tests' })
const open = (env: Record<string, string>) => openStores(loadConfig({ env, cwd: '/nonexistent-dir-for-tests' }), silentLogger)
async function closeStores(s: Stores) {
  await s.auditSink.drain(5_000)
  await s.usageSink.drain()
  await s.close()
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'copy-to-pg-'))
  source = join(dir, 'gateway.db')
  const s = await open({ GATEWAY_DB_PATH: source })
  await s.keys.insert(keyRecord(1, { allowedModels: ['openai/*'], userPath: '/team' }))
  await s.keys.insert(keyRecord(2))
  await s.keys.revoke('key-2', '2030-02-01T00:00:00.000Z')
  await s.workflows.insertVersion(workflowVersion(1))
  await s.workflows.insertVersion(workflowVersion(2))
  await s.workflows.insertVersion(workflowVersion(1, { id: 'wf_gone', versionId: 'wfv_gone', name: 'gone' }))
  await s.workflows.deactivate('wf_gone')
  await s.limits.saveBudget({ id: 'b1', scope: { user_path: '/team' }, window: 'month', limit_usd: 5, created_at: '2030-01-01T00:00:00.000Z' } as never)
  await s.limits.saveRateLimit({ id: 'r1', scope: { user_path: '/team' }, requests_per_minute: 3, created_at: '2030-01-01T00:00:00.000Z' } as never)
  await s.prices.set('openai/gpt-4o', { input: 1, output: 2 })
  for (let i = 0; i < AUDIT; i++) {
    const e = makeEntry({
      at: T0 + i * 1000,
      session_id: `s${i % 7}`,
      data: {
        request_body: { messages: [{ role: 'user', content: `question ${i} ✓` }] },
        response_body: { choices: [{ message: { content: `answer ${i}` } }] },
        labels: i % 2 ? ['odd'] : [],
      },
    })
    entries.push(e)
    s.auditSink.record(e)
  }
  for (let i = 0; i < USAGE; i++) s.usageSink.record(usageRecord(`u${i}`, { ts: T0 + i * 1000, cost_usd: 0.5, labels: i % 2 ? ['odd'] : [] }))
  await s.auditSink.flush()
  await s.usageSink.flush()
  await closeStores(s)
  if (postgresAvailable()) target = await (await sharedPostgres()).freshDatabase()
}, 120_000)

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function targetState() {
  const s = await open({ DATABASE_URL: target })
  try {
    const range = { fromMs: 0, toMs: T0 + 10 * 86_400_000 }
    return {
      keys: (await s.keys.loadAll()).sort((a, b) => a.id.localeCompare(b.id)),
      workflows: [...(await s.workflows.history('wf_1')), ...(await s.workflows.history('wf_gone'))],
      budgets: await s.limits.budgets(),
      rateLimits: await s.limits.rateLimits(),
      prices: await s.prices.all(),
      auditTotal: (await s.audit.list({ limit: 1, offset: 0 })).total,
      usage: await s.usage.totals(range),
      odd: (await s.usage.breakdown(range, 'label')).find((r) => r.label === 'odd')?.requests,
      sample: await s.audit.get(entries[1234]!.id),
    }
  } finally {
    await closeStores(s)
  }
}

describe.skipIf(!postgresAvailable())('copy-sqlite-to-postgres', () => {
  test('an interrupted copy continues where it stopped; the result is the whole database, exactly once', async () => {
    const stop = new AbortController()
    const seen: CopyProgress[] = []
    const first = await copySqliteToPostgres(config(), {
      from: source,
      to: target,
      pageSize: 500,
      signal: stop.signal,
      onProgress: (p) => {
        seen.push(p)
        if (p.audit.copied >= 500) stop.abort()
      },
    })
    expect(first).toMatchObject({ interrupted: true, audit: 500, usage: 0, keys: 2, workflowVersions: 3, budgets: 1, rateLimits: 1, prices: 1 })
    expect(seen[0]).toMatchObject({ phase: 'definitions', audit: { copied: 0, total: AUDIT }, usage: { copied: 0, total: USAGE } })
    expect((await targetState()).auditTotal).toBe(500)

    const second = await copySqliteToPostgres(config(), { from: source, to: target, pageSize: 500 })
    expect(second).toMatchObject({ interrupted: false, audit: AUDIT - 500, usage: USAGE, keys: 0, workflowVersions: 0 })

    const state = await targetState()
    expect(state.auditTotal).toBe(AUDIT)
    expect(state.sample).toEqual(entries[1234])
    expect(state.usage).toMatchObject({ requests: USAGE, cost_usd: USAGE * 0.5 })
    expect(state.odd).toBe(USAGE / 2)
    expect(state.keys).toEqual([
      keyRecord(1, { allowedModels: ['openai/*'], userPath: '/team' }),
      { ...keyRecord(2), revokedAt: '2030-02-01T00:00:00.000Z', updatedAt: '2030-02-01T00:00:00.000Z' },
    ])
    expect(state.workflows.map((w) => [w.versionId, w.active])).toEqual([
      ['wfv_2', true],
      ['wfv_1', false],
      ['wfv_gone', false],
    ])
    expect(state.budgets.map((b) => b.id)).toEqual(['b1'])
    expect(state.rateLimits.map((r) => r.id)).toEqual(['r1'])
    expect(state.prices).toEqual({ 'openai/gpt-4o': { input: 1, output: 2 } })

    // Finished: a rerun reads nothing more.
    expect(await copySqliteToPostgres(config(), { from: source, to: target })).toMatchObject({ audit: 0, usage: 0, keys: 0, workflowVersions: 0 })
  }, 120_000)

  test('the command: --restart copies everything again without duplicates and draws its progress', async () => {
    const run = Bun.spawnSync(['bun', 'src/main.ts', 'copy-sqlite-to-postgres', '--from', source, '--restart'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: target, HOME: process.env.HOME ?? '' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const err = run.stderr.toString()
    expect(run.exitCode, err).toBe(0)
    expect(err).toContain('100.0%')
    expect(err).toContain(`audit entries ${AUDIT} read, usage records ${USAGE} read`)
    expect(err).not.toMatch(/postgres:\/\/[^*\s]*@/) // no credentials printed
    const state = await targetState()
    expect(state.auditTotal).toBe(AUDIT)
    expect(state.usage.requests).toBe(USAGE)
    const bad = Bun.spawnSync(['bun', 'src/main.ts', 'copy-sqlite-to-postgres', '--from', source], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr.toString()).toContain('DATABASE_URL')
  }, 120_000)
})
