/**
 * @module `gateway copy-sqlite-to-postgres`: copies an embedded SQLite database into PostgreSQL (keys, workflows
 * with their history, budgets and rate limits, price overrides, the audit log, usage records), for the move to
 * several replicas (docs/scale-out.md).
 *
 * - Idempotent: every write skips what the target already has (keys and workflow versions by id, audit entries
 *   and usage records by id; limits and prices are upserts), so running it twice copies nothing twice.
 * - Resumable: the audit log and usage are copied in pages in row-key order, and after each page is committed the
 *   position is recorded in the target (`gateway_copy_progress`, one row per source file); a rerun continues
 *   from there. `--restart` ignores the recorded position (still without duplicates).
 * - The source is only read (it is migrated first when an older release made it); the target is written through
 *   its stores, so it gets exactly what a gateway on PostgreSQL would have written.
 */
import { SQL } from 'bun'
import { resolve } from 'node:path'
import type { GatewayConfig } from '../config/schema.ts'
import { silentLogger } from '../log/logger.ts'
import { openSqlite } from './sqlite/client.ts'
import { SqliteKeyStore } from './sqlite/api-keys.ts'
import { sqliteExport } from './sqlite/export.ts'
import { sqliteLimitStore } from './sqlite/limits.ts'
import { migrateSqlite } from './sqlite/migrate.ts'
import { sqlitePriceStore } from './sqlite/usage.ts'
import { sqliteWorkflowStore } from './sqlite/workflows.ts'
import { openStores } from './open.ts'
import type { Stores } from './types.ts'

export interface CopyOptions {
  /** The SQLite file to read. */
  from: string
  /** The PostgreSQL URL to write to. */
  to: string
  /** Entries and records per page (one committed batch each). */
  pageSize?: number
  /** Start over instead of resuming from the recorded position. */
  restart?: boolean
  /** Called after every step and page; the command draws its progress bar from it. */
  onProgress?: (progress: CopyProgress) => void
  /** Stops between two pages (the position of the last committed page is kept). */
  signal?: AbortSignal
}

export interface CopyProgress {
  phase: 'definitions' | 'audit' | 'usage' | 'done'
  audit: { copied: number; total: number }
  usage: { copied: number; total: number }
}

export interface CopyResult {
  keys: number
  workflowVersions: number
  budgets: number
  rateLimits: number
  prices: number
  /** Entries and records read from the source in this run (already present ones are skipped by the target). */
  audit: number
  usage: number
  /** True when the run stopped early (signal); rerun to continue. */
  interrupted: boolean
}

const PROGRESS_TABLE = 'gateway_copy_progress'

export async function copySqliteToPostgres(config: GatewayConfig, options: CopyOptions): Promise<CopyResult> {
  const source = openSqlite(resolve(options.from))
  migrateSqlite(source)
  const target = await openStores({ ...config, database: { ...config.database, url: options.to }, redis: {} }, silentLogger)
  const progressDb = new SQL(options.to, { max: 1 })
  const sourceId = resolve(options.from)
  try {
    const pageSize = options.pageSize ?? 1000
    const exporter = sqliteExport(source)
    const totals = exporter.counts()
    const progress: CopyProgress = { phase: 'definitions', audit: { copied: 0, total: totals.audit }, usage: { copied: 0, total: totals.usage } }
    const report = () => options.onProgress?.({ ...progress, audit: { ...progress.audit }, usage: { ...progress.usage } })
    report()

    const definitions = await copyDefinitions(source, target)

    await progressDb.unsafe(
      `CREATE TABLE IF NOT EXISTS ${PROGRESS_TABLE} (source text PRIMARY KEY, audit_after bigint NOT NULL DEFAULT 0, usage_after bigint NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now())`,
    )
    if (options.restart) await progressDb`DELETE FROM gateway_copy_progress WHERE source = ${sourceId}`
    const [saved] = await progressDb`SELECT audit_after, usage_after FROM gateway_copy_progress WHERE source = ${sourceId}`
    const position = { audit: Number(saved?.audit_after ?? 0), usage: Number(saved?.usage_after ?? 0) }
    const savePosition = () =>
      progressDb`INSERT INTO gateway_copy_progress (source, audit_after, usage_after) VALUES (${sourceId}, ${position.audit}, ${position.usage})
        ON CONFLICT (source) DO UPDATE SET audit_after = EXCLUDED.audit_after, usage_after = EXCLUDED.usage_after, updated_at = now()`
    // Rows before the recorded position were copied by an earlier run.
    progress.audit.copied = countBefore(source, 'SELECT COUNT(*) AS n FROM audit_log WHERE seq <= ?', position.audit)
    progress.usage.copied = countBefore(source, 'SELECT COUNT(*) AS n FROM usage_records WHERE rowid <= ?', position.usage)
    const result: CopyResult = { ...definitions, audit: 0, usage: 0, interrupted: false }

    progress.phase = 'audit'
    report()
    for (;;) {
      if (options.signal?.aborted) return { ...result, interrupted: true }
      const page = exporter.audit(position.audit, pageSize)
      if (page.items.length === 0) break
      for (const entry of page.items) target.auditSink.record(entry)
      await target.auditSink.flush()
      assertStored(target)
      position.audit = page.last
      await savePosition()
      result.audit += page.items.length
      progress.audit.copied += page.items.length
      report()
    }

    progress.phase = 'usage'
    report()
    for (;;) {
      if (options.signal?.aborted) return { ...result, interrupted: true }
      const page = exporter.usage(position.usage, pageSize)
      if (page.items.length === 0) break
      for (const record of page.items) target.usageSink.record(record)
      await target.usageSink.flush()
      position.usage = page.last
      await savePosition()
      result.usage += page.items.length
      progress.usage.copied += page.items.length
      report()
    }
    progress.phase = 'done'
    report()
    return result
  } finally {
    await target.auditSink.drain(10_000)
    await target.usageSink.drain()
    await target.close()
    await progressDb.close()
    source.close()
  }
}

/** Keys, workflow versions, limits and prices: small, copied whole on every run, skipping what the target has. */
async function copyDefinitions(source: ReturnType<typeof openSqlite>, target: Stores) {
  const counts = { keys: 0, workflowVersions: 0, budgets: 0, rateLimits: 0, prices: 0 }
  for (const key of await new SqliteKeyStore(source).loadAll()) {
    if (await target.keys.get(key.id)) continue
    await target.keys.insert(key)
    counts.keys++
  }
  const workflows = sqliteWorkflowStore(source)
  const ids = source.query<{ workflow_id: string }, []>('SELECT DISTINCT workflow_id FROM workflow_versions ORDER BY workflow_id').all()
  for (const { workflow_id: id } of ids) {
    const versions = (await workflows.history(id)).reverse() // oldest first: each insert becomes the active one
    const present = new Set((await target.workflows.history(id)).map((v) => v.versionId))
    for (const v of versions) {
      if (present.has(v.versionId)) continue
      await target.workflows.insertVersion(v)
      counts.workflowVersions++
    }
    if (!versions.some((v) => v.active)) await target.workflows.deactivate(id)
  }
  const limits = sqliteLimitStore(source)
  for (const b of await limits.budgets()) await target.limits.saveBudget(b), counts.budgets++
  for (const r of await limits.rateLimits()) await target.limits.saveRateLimit(r), counts.rateLimits++
  for (const [model, price] of Object.entries(await sqlitePriceStore(source).all())) await target.prices.set(model, price), counts.prices++
  return counts
}

const countBefore = (db: ReturnType<typeof openSqlite>, query: string, key: number) => db.query<{ n: number }, [number]>(query).get(key)?.n ?? 0

/** After a flush every entry must be in the target: a page left in the queue or spilled means the target failed. */
function assertStored(target: Stores): void {
  const stats = target.auditSink.stats()
  if (stats.queue_depth > 0 || stats.spill_files > 0 || stats.failed > 0) {
    throw new Error(`the target did not store a page of audit entries (${stats.last_error ?? 'unknown error'}); rerun to resume from the last committed page`)
  }
}
