import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { makeEntry, rowsOf } from '../../../test/helpers/audit-entries.ts'
import type { AuditLogQuery } from '../../audit/entry.ts'
import { loadConfig } from '../../config/load.ts'
import { silentLogger } from '../../log/logger.ts'
import { openStores } from '../open.ts'
import { SqliteAuditStore } from './audit-log.ts'
import { applyMigrations, openSqlite } from './client.ts'
import { migrationFiles, migrationJournal } from './drizzle/index.ts'
import { legacyMigrations, usageLabelsMigration } from './legacy-migrations.ts'
import { migrateSqlite, sqliteMigrations } from './migrate.ts'
import { tempDirs } from '../../../test/helpers/temp-dirs.ts'

const tempDir = tempDirs('sqlite-migrate-')
function tempFile() {
  const dir = tempDir()
  return join(dir, 'gateway.db')
}

/** Tables, columns, indexes (with their columns, uniqueness and partial condition) and triggers, as SQLite reports them. */
function schemaOf(db: Database) {
  const objects = db
    .query<{ type: string; name: string; tbl_name: string; sql: string | null }, []>(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_stat%' AND tbl_name NOT IN ('schema_migrations', '__drizzle_migrations') AND name NOT LIKE 'audit_log_search_%' ORDER BY type, name",
    )
    .all()
  const out: Record<string, unknown> = {}
  for (const o of objects) {
    if (o.type === 'table') {
      const columns = db.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }, []>(`PRAGMA table_xinfo(${o.name})`).all()
      // Cosmetic differences between drizzle-kit's and hand-written DDL: type case, `false` for 0, NOT NULL on primary keys (SQLite enforces it for INTEGER keys anyway).
      out[`table ${o.name}`] = {
        columns: columns.map((c) => ({
          name: c.name,
          type: c.type.toLowerCase(),
          notnull: c.pk > 0 ? 'pk' : c.notnull,
          dflt: c.dflt_value === 'false' ? '0' : c.dflt_value,
          pk: c.pk,
        })),
        withoutRowid: /WITHOUT ROWID/i.test(o.sql ?? ''),
        virtual: /VIRTUAL TABLE/i.test(o.sql ?? '') ? o.sql!.replace(/[`"]/g, '').replace(/^.*USING/i, 'USING') : undefined,
      }
    } else if (o.type === 'index') {
      const list = db
        .query<{ name: string; unique: number; partial: number; origin: string }, []>(`PRAGMA index_list(${o.tbl_name})`)
        .all()
        .find((i) => i.name === o.name)!
      const cols = db
        .query<{ name: string | null; key: number }, []>(`PRAGMA index_xinfo(${o.name})`)
        .all()
        .filter((c) => c.key === 1)
        .map((c) => c.name)
      const where = o.sql
        ?.match(/WHERE (.*)$/is)?.[1]
        ?.replace(/[`"]/g, '')
        .trim()
      out[`index ${o.tbl_name}(${cols.join(',')})${where ? ` WHERE ${where}` : ''}`] = { unique: list.unique, name: list.origin === 'c' ? o.name : `(${list.origin})` }
    } else if (o.type === 'trigger') {
      out[`trigger ${o.name}`] = o.sql!.replace(/[`"]/g, '').replace(/\s+/g, ' ')
    }
  }
  return out
}

test('every migration in the journal is embedded, and the journal is in time order', () => {
  expect(Object.keys(migrationFiles).sort()).toEqual(migrationJournal.entries.map((e) => e.tag).sort())
  const times = migrationJournal.entries.map((e) => e.when)
  expect([...times].sort((a, b) => a - b)).toEqual(times)
  const onDisk = readdirSync(join(import.meta.dir, 'drizzle'))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.slice(0, -4))
  expect(onDisk.sort()).toEqual(Object.keys(migrationFiles).sort())
})

test('a new database gets exactly the schema of one made before drizzle, once that one is migrated', () => {
  const fresh = new Database(':memory:')
  expect(migrateSqlite(fresh)).toEqual(sqliteMigrations.map((m) => m.tag))
  const legacy = new Database(':memory:')
  applyMigrations(legacy, legacyMigrations)
  // The legacy migrations end exactly at the baseline...
  const baseline = new Database(':memory:')
  migrateSqlite(baseline, sqliteMigrations.slice(0, 1))
  expect(schemaOf(baseline)).toEqual(schemaOf(legacy))
  // ...and the drizzle migrations after it take both to the same schema.
  expect(migrateSqlite(legacy)).toEqual(sqliteMigrations.slice(1).map((m) => m.tag))
  expect(schemaOf(fresh)).toEqual(schemaOf(legacy))
  expect(Object.keys(schemaOf(fresh))).toContain('table audit_log_search')
  // Same planner statistics, so the same query plans.
  const stats = (db: Database) => db.query("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'audit_log' ORDER BY idx").all()
  expect(stats(fresh)).toEqual(stats(legacy))
  // The search index's own settings (0013): segments merged 16 at a time.
  const automerge = (db: Database) => db.query("SELECT v FROM audit_log_search_config WHERE k = 'automerge'").get()
  expect(automerge(fresh)).toEqual({ v: 16 })
  expect(automerge(legacy)).toEqual({ v: 16 })
})

test('migrating twice applies nothing the second time; two connections starting together apply it once', () => {
  const path = tempFile()
  const a = openSqlite(path)
  const b = openSqlite(path)
  const results = [migrateSqlite(a), migrateSqlite(b)]
  expect(results.flat()).toEqual(sqliteMigrations.map((m) => m.tag))
  expect(migrateSqlite(a)).toEqual([])
  expect(a.query('SELECT COUNT(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: sqliteMigrations.length })
  a.close()
  b.close()
})

const T = Date.UTC(2026, 10, 20, 12)

/** A database as the release before drizzle left it: its own migrations, rows written with its SQL. */
function databaseMadeBeforeDrizzle(path: string, migrations = legacyMigrations) {
  const db = openSqlite(path)
  applyMigrations(db, migrations)
  db.exec(
    `INSERT INTO api_keys VALUES ('key_1', 'ci', 'the CI key', 'hash-1', 'sk-gw-...AbCd', '/team', '["openai/*"]', 1, NULL, '2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z', NULL, 'master')`,
  )
  db.exec(
    `INSERT INTO workflow_versions VALUES ('wfv_1', 'wf_1', 1, 'default', 'the default', '{"type":"global"}', '{"audit":true}', '{}', 1, '2026-11-01T00:00:00.000Z', 'config')`,
  )
  db.exec(
    `INSERT INTO limit_definitions VALUES ('bud_1', 'budget', '{"id":"bud_1","scope":{"type":"global"},"window":"month","limit_usd":10,"created_at":"2026-11-01T00:00:00.000Z"}', '2026-11-01T00:00:00.000Z')`,
  )
  db.exec(`INSERT INTO price_overrides VALUES ('openai/gpt-4o', '{"input":1,"output":2}', '2026-11-01T00:00:00.000Z')`)
  db.exec(`INSERT INTO response_threads VALUES ('resp_1', '2026-11-01T00:00:00.000Z', 'openai', 1, '[{"role":"user","content":"hi"}]')`)
  db.exec(
    `INSERT INTO usage_records (id, ts, key_id, user_path, provider_name, provider_type, model, requested_model, prompt_tokens, completion_tokens, total_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, cost_usd, saved_usd, rewrite_tokens_saved, rewrite_cost_saved, priced, estimated, cache_hit) VALUES ('u1', ${T}, 'key_1', '/team', 'openai', 'openai', 'gpt-4o', 'gpt-4o', 10, 5, 15, 0, 0, 0, 0.5, 0, 0, 0, 1, 0, 0)`,
  )
  const entries = [
    makeEntry({ at: T, session_id: 's1' }),
    makeEntry({ at: T + 1, session_id: 's1', data: { request_body: { messages: [{ role: 'user', content: 'hello there' }] } } }),
  ]
  return { db, entries, write: () => new SqliteAuditStore(db).writeBatch(rowsOf(entries)) }
}

async function expectIntact(path: string, entryIds: string[]) {
  const stores = await openStores(loadConfig({ env: { GATEWAY_DB_PATH: path }, cwd: '/nonexistent-dir-for-tests' }), silentLogger)
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
      expect((await stores.audit.list({ limit: 10, offset: 0, search: 'chat/completions' })).total).toBe(entryIds.length)
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

test('a database made before drizzle upgrades in place with its data intact', async () => {
  const path = tempFile()
  const { db, entries, write } = databaseMadeBeforeDrizzle(path)
  await write()
  db.close()
  await expectIntact(
    path,
    entries.map((e) => e.id),
  )
  const after = new Database(path, { readonly: true })
  expect(after.query('SELECT COUNT(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: sqliteMigrations.length })
  after.close()
})

test('0004: dashboard-enabled keys become admins confined to their user path; the legacy flag stays only for unscoped ones', () => {
  const db = openSqlite(tempFile())
  const before = sqliteMigrations.findIndex((m) => m.tag === '0004_admin_roles')
  expect(before).toBeGreaterThan(0)
  migrateSqlite(db, sqliteMigrations.slice(0, before))
  const insert = (id: string, userPath: string | null, dashboard: number) =>
    db
      .query(
        "INSERT INTO api_keys (id, name, key_hash, redacted_key, user_path, dashboard_enabled, created_at, updated_at, created_by) VALUES (?, ?, ?, 'r', ?, ?, 't', 't', 'master')",
      )
      .run(id, id, `h-${id}`, userPath, dashboard)
  insert('scoped', '/acme/team-a', 1)
  insert('unbound', null, 1)
  insert('root', '/', 1)
  insert('plain', '/acme', 0)
  migrateSqlite(db)
  expect(db.query('SELECT id, role, dashboard_enabled AS legacy FROM api_keys ORDER BY id').all()).toEqual([
    { id: 'plain', role: null, legacy: 0 },
    { id: 'root', role: 'admin', legacy: 1 },
    { id: 'scoped', role: 'admin', legacy: 0 },
    { id: 'unbound', role: 'admin', legacy: 1 },
  ])
  db.close()
})

test('one made before the labels migrations gets them on the way', async () => {
  const path = tempFile()
  const older = legacyMigrations.filter((m) => m.id < '0009')
  // (Its audit rows are written by the release's own code in the test above; this one has none.)
  const { db } = databaseMadeBeforeDrizzle(path, older)
  db.close()
  await expectIntact(path, [])
  const after = new Database(path, { readonly: true })
  expect(after.query('SELECT id FROM schema_migrations WHERE id = ?').get(usageLabelsMigration.id)).toEqual({ id: usageLabelsMigration.id })
  after.close()
})

test('a database of the release before 0001 (the baseline) upgrades in place through every later migration: its entries are found by every filter', async () => {
  const path = tempFile()
  const db = openSqlite(path)
  expect(migrateSqlite(db, sqliteMigrations.slice(0, 1))).toEqual(['0000_baseline'])
  const uuid = '0b6f4c1e-55aa-4d3e-9c2b-7e8f9a0b1c2d'
  const entries = [
    makeEntry({ at: T, session_id: 'chat-42', user_path: '/acme/a' }),
    makeEntry({ at: T + 1, session_id: 'chat-42', status_code: 429, error_type: 'rate_limit_error', data: { labels: ['canary'] } }),
    makeEntry({ at: T + 2, request_id: uuid, provider: 'azure-openai', provider_name: 'azure-east' }),
    makeEntry({ at: T + 3, session_id: uuid }),
  ]
  await new SqliteAuditStore(db).writeBatch(rowsOf(entries))
  db.close()

  const after = openSqlite(path)
  expect(migrateSqlite(after)).toEqual(sqliteMigrations.slice(1).map((m) => m.tag))
  const indexes = after
    .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'audit_log' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((r) => r.name)
  expect(indexes).toEqual([
    'audit_log_error_type_ts',
    'audit_log_model_ts',
    'audit_log_previous_response_id',
    'audit_log_response_id',
    'audit_log_status_ts',
    'audit_log_ts',
    'audit_log_user_path_ts',
  ])
  const store = new SqliteAuditStore(after)
  const ids = async (q: Partial<AuditLogQuery>) => (await store.list({ limit: 10, offset: 0, ...q })).entries.map((e) => e.id)
  const [a, b, c, d] = entries.map((e) => e.id) as [string, string, string, string]
  expect(await ids({ sessionId: 'chat-42' })).toEqual([b, a])
  expect(await ids({ statusCode: 429 })).toEqual([b])
  expect(await ids({ statusCode: 200 })).toEqual([d, c, a])
  expect(await ids({ errorType: 'rate_limit_error' })).toEqual([b])
  expect(await ids({ requestedModel: 'fast', statusCode: 429 })).toEqual([b])
  expect(await ids({ requestedModel: 'fast', statusCode: 200 })).toEqual([d, c, a])
  expect(await ids({ provider: 'azure-east' })).toEqual([c])
  expect(await ids({ provider: 'azure-openai' })).toEqual([c])
  expect(await ids({ userPath: '/acme' })).toEqual([a])
  expect(await ids({ label: 'canary' })).toEqual([b])
  expect(await ids({ search: uuid })).toEqual([d, c])
  expect(await ids({ search: 'chat 42' })).toEqual([b, a])
  after.close()
})
