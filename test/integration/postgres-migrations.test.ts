/**
 * The PostgreSQL migrations against a real server (a throwaway cluster): drizzle-kit's journal is embedded whole,
 * a new database gets exactly the schema of one made by the release with hand-written migrations, and such a
 * database upgrades in place when today's code starts on it, its rows intact.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { loadConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { openStores } from '../../src/stores/open.ts'
import { PostgresAuditStore } from '../../src/stores/postgres/audit-log.ts'
import { applyPgMigrations, connectPostgres } from '../../src/stores/postgres/client.ts'
import { migrationFiles, migrationJournal } from '../../src/stores/postgres/drizzle/index.ts'
import { BEFORE_DRIZZLE_KIT, postgresMigrations } from '../../src/stores/postgres/migrations.ts'
import { applyHandWrittenMigrations, handWrittenMigrations } from '../fixtures/postgres-before-drizzle-kit/migrations.ts'
import { makeEntry, rowsOf } from '../helpers/audit-entries.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'

const DRIZZLE_DIR = join(import.meta.dir, '../../src/stores/postgres/drizzle')
const open: SQL[] = []
afterAll(async () => {
  for (const s of open.splice(0)) await s.close()
})
async function freshDatabase() {
  const url = await (await sharedPostgres()).freshDatabase()
  const sql = connectPostgres({ url, poolSize: 2, tls: undefined })
  open.push(sql)
  return { url, sql }
}

test('every migration in the journal is embedded, and the journal is in time order', () => {
  expect(Object.keys(migrationFiles).sort()).toEqual(migrationJournal.entries.map((e) => e.tag).sort())
  const times = migrationJournal.entries.map((e) => e.when)
  expect([...times].sort((a, b) => a - b)).toEqual(times)
  const onDisk = readdirSync(DRIZZLE_DIR)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.slice(0, -4))
  expect(onDisk.sort()).toEqual(Object.keys(migrationFiles).sort())
})

test('the committed migrations are what drizzle-kit generates from schema.ts (nothing left to generate)', async () => {
  const out = mkdtempSync(join(tmpdir(), 'pg-drizzle-kit-'))
  try {
    cpSync(DRIZZLE_DIR, out, { recursive: true })
    const root = join(import.meta.dir, '../..')
    // drizzle-kit takes the folder relative to the working directory.
    const run = Bun.spawnSync(['bunx', 'drizzle-kit', 'generate', '--dialect', 'postgresql', '--schema', 'src/stores/postgres/schema.ts', '--out', relative(root, out)], {
      cwd: root,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(run.exitCode).toBe(0)
    expect(run.stdout.toString() + run.stderr.toString()).toContain('No schema changes')
    expect(readdirSync(out).sort()).toEqual(readdirSync(DRIZZLE_DIR).sort())
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}, 30_000)

/** Relations, columns, constraints, indexes, partitioning and sequences of the public schema, as the catalog reports them. */
async function schemaOf(sql: SQL) {
  // Day (`_p`, older releases) and week (`_w`) partitions depend on the day the test runs; the partitioned parents
  // and DEFAULT partitions are compared.
  const dayPartition = "NOT (c.relname ~ '_[pw][0-9]{8}$')"
  const relations = await sql.unsafe(`
    SELECT c.relname AS name, c.relkind::text AS kind, pg_get_partkeydef(c.oid) AS partition_key, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') AND c.relname <> 'schema_migrations' AND ${dayPartition}
    ORDER BY 1`)
  const columns = await sql.unsafe(`
    SELECT c.relname AS "table", a.attnum AS position, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
      pg_get_expr(d.adbin, d.adrelid) AS "default", co.collname AS collation
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> (SELECT oid FROM pg_collation WHERE collname = 'default')
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND c.relname <> 'schema_migrations' AND ${dayPartition}
    ORDER BY 1, 2`)
  const constraints = await sql.unsafe(`
    SELECT c.relname AS "table", k.conname AS name, k.contype::text AS type, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relname <> 'schema_migrations' AND ${dayPartition}
    ORDER BY 1, 2`)
  const indexes = await sql.unsafe(`
    SELECT tablename AS "table", indexname AS name, indexdef AS definition FROM pg_indexes
    WHERE schemaname = 'public' AND tablename <> 'schema_migrations' AND NOT (tablename ~ '_[pw][0-9]{8}$')
    ORDER BY 1, 2`)
  return { relations: [...relations], columns: [...columns], constraints: [...constraints], indexes: [...indexes] }
}

const T = Date.UTC(2026, 10, 20, 12)

/** Rows written the way the release with hand-written migrations wrote them. */
async function fillAsBeforeDrizzleKit(sql: SQL) {
  await sql.unsafe(`
    INSERT INTO api_keys VALUES ('key_1', 'ci', 'the CI key', 'hash-1', 'sk-gw-...AbCd', '/team', '["openai/*"]', true, NULL, '2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z', NULL, 'master');
    INSERT INTO workflow_versions VALUES ('wfv_1', 'wf_1', 1, 'default', 'the default', '{"type":"global"}', '{"audit":true}', '{}', true, '2026-11-01T00:00:00.000Z', 'config');
    INSERT INTO limit_definitions VALUES ('bud_1', 'budget', '{"id":"bud_1","scope":{"type":"global"},"window":"month","limit_usd":10,"created_at":"2026-11-01T00:00:00.000Z"}', '2026-11-01T00:00:00.000Z');
    INSERT INTO price_overrides VALUES ('openai/gpt-4o', '{"input":1,"output":2}', '2026-11-01T00:00:00.000Z');
    INSERT INTO response_threads VALUES ('resp_1', '2026-11-01T00:00:00.000Z', 'openai', true, '[{"role":"user","content":"hi"}]');
    INSERT INTO usage_records (id, ts, key_id, user_path, provider_name, provider_type, model, requested_model, prompt_tokens, completion_tokens, total_tokens,
      cached_tokens, cache_write_tokens, reasoning_tokens, cost_usd, saved_usd, rewrite_tokens_saved, rewrite_cost_saved, priced, estimated, cache_hit, labels)
    VALUES ('u1', ${T}, 'key_1', '/team', 'openai', 'openai', 'gpt-4o', 'gpt-4o', 10, 5, 15, 0, 0, 0, 0.5, 0, 0, 0, true, false, false, '{team-a}');`)
  const entries = [
    makeEntry({ at: T, session_id: 's1' }),
    makeEntry({ at: T + 1, session_id: 's1', data: { request_body: { messages: [{ role: 'user', content: 'hello there' }] } } }),
  ]
  await new PostgresAuditStore(sql).writeBatch(rowsOf(entries))
  return entries.map((e) => e.id)
}

/** Today's code starts on the database (migrations, partitions, every store) and reads the old rows back. */
async function expectIntact(url: string, entryIds: string[]) {
  const stores = await openStores(loadConfig({ env: { DATABASE_URL: url }, cwd: '/nonexistent-dir-for-tests' }), silentLogger)
  try {
    expect(await stores.keys.get('key_1')).toMatchObject({ name: 'ci', keyHash: 'hash-1', allowedModels: ['openai/*'], role: 'admin', userPath: '/team', revokedAt: null })
    expect(await stores.workflows.listActive()).toMatchObject([{ versionId: 'wfv_1', name: 'default', scope: { type: 'global' }, active: true }])
    expect(await stores.limits.budgets()).toMatchObject([{ id: 'bud_1', limit_usd: 10 }])
    expect(await stores.prices.all()).toEqual({ 'openai/gpt-4o': { input: 1, output: 2 } })
    // A thread from before owners were stored keeps its row, owned by nobody a request can be: no caller reads it.
    const unowned = { principalId: '', userPath: '' }
    expect(await stores.responseThreads.get('resp_1', unowned)).toEqual({
      id: 'resp_1',
      owner: unowned,
      providerName: 'openai',
      native: true,
      items: [{ role: 'user', content: 'hi' }],
      response: null,
    })
    expect(await stores.responseThreads.get('resp_1', { principalId: 'master', userPath: '' })).toBeUndefined()
    expect(await stores.usage.totals({ fromMs: T - 1000, toMs: T + 1000 })).toMatchObject({ requests: 1, total_tokens: 15, cost_usd: 0.5 })
    const page = await stores.audit.list({ limit: 10, offset: 0 })
    expect(page.entries.map((e) => e.id).sort()).toEqual([...entryIds].sort())
    if (entryIds.length > 0) {
      expect((await stores.audit.list({ limit: 10, offset: 0, search: 'fast' })).total).toBe(entryIds.length)
      expect((await stores.audit.get(entryIds[1]!))?.data.request_body).toEqual({ messages: [{ role: 'user', content: 'hello there' }] })
    }
    // And it keeps working: new rows next to the old ones.
    stores.auditSink.record(makeEntry({ at: T + 2 }))
    await stores.auditSink.flush()
    expect((await stores.audit.list({ limit: 10, offset: 0 })).total).toBe(entryIds.length + 1)
  } finally {
    await stores.auditSink.drain()
    await stores.close()
  }
}

const recorded = async (sql: SQL) => Number((await sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)[0].n)

describe.skipIf(!postgresAvailable())('PostgreSQL migrations', () => {
  test('a new database gets exactly the schema of one made with the hand-written migrations', async () => {
    const fresh = await freshDatabase()
    // The drizzle-kit migrations that stand for the hand-written ones; later ones change the schema on purpose.
    const same = postgresMigrations.filter((m) => Object.values(BEFORE_DRIZZLE_KIT).includes(m.tag))
    expect(await applyPgMigrations(fresh.sql, same, silentLogger)).toEqual(same.map((m) => m.tag))
    expect(await applyPgMigrations(fresh.sql, same, silentLogger)).toEqual([])
    expect(await recorded(fresh.sql)).toBe(same.length)
    const before = await freshDatabase()
    await applyHandWrittenMigrations(before.sql)
    const [a, b] = [await schemaOf(fresh.sql), await schemaOf(before.sql)]
    expect(a).toEqual(b)
    // The comparison sees what matters: the partitioned audit table, its search index, a named constraint.
    expect(a.relations).toContainEqual(expect.objectContaining({ name: 'audit_log', kind: 'p', partition_key: 'RANGE (ts)' }))
    expect(a.indexes).toContainEqual(expect.objectContaining({ name: 'audit_log_search' }))
    expect(a.constraints).toContainEqual(expect.objectContaining({ name: 'limit_definitions_kind_check' }))
  }, 60_000)

  test('a database made with the hand-written migrations upgrades in place with its data intact', async () => {
    const before = await freshDatabase()
    expect(await applyHandWrittenMigrations(before.sql)).toEqual(['0001_core', '0002_audit_log'])
    const entryIds = await fillAsBeforeDrizzleKit(before.sql)
    await expectIntact(before.url, entryIds)
    // Recorded as applied, not run again; a second start applies nothing.
    expect(await recorded(before.sql)).toBe(postgresMigrations.length)
    expect(await applyPgMigrations(before.sql, postgresMigrations, silentLogger)).toEqual([])
    const fresh = await freshDatabase()
    await applyPgMigrations(fresh.sql, postgresMigrations, silentLogger)
    expect(await schemaOf(before.sql)).toEqual(await schemaOf(fresh.sql))
  }, 60_000)

  test('one that stopped between the two hand-written migrations gets the rest', async () => {
    const before = await freshDatabase()
    await applyHandWrittenMigrations(before.sql, handWrittenMigrations.slice(0, 1))
    expect(await applyPgMigrations(before.sql, postgresMigrations, silentLogger)).toEqual(postgresMigrations.slice(1).map((m) => m.tag))
    const fresh = await freshDatabase()
    await applyPgMigrations(fresh.sql, postgresMigrations, silentLogger)
    expect(await schemaOf(before.sql)).toEqual(await schemaOf(fresh.sql))
  }, 60_000)
})
