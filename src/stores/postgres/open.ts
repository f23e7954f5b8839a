/**
 * @module The PostgreSQL backend as one unit (`DATABASE_URL`): every store on one shared database, so several
 * replicas can run. Migrations run at start-up under an advisory lock; the change feed is LISTEN/NOTIFY (or Redis
 * pub/sub when `REDIS_URL` is set, which also carries counters and the cache); jobs that must run once take the
 * advisory-lock lease. Audit entries and usage records go through the same queued writers and write thread as on
 * SQLite: while PostgreSQL is unreachable they wait in memory, audit entries spill to disk past the queue's bound,
 * and both are written when it is back.
 *
 * Every store call that fails because the server cannot be reached is turned into a StoreUnavailableError (an
 * admin call answers 503), and marks the database unreachable for /ready until a probe succeeds again.
 */
import { existsSync } from 'node:fs'
import { createAuditWriter } from '../write-path/audit-writer.ts'
import type { GatewayConfig } from '../../config/schema.ts'
import type { Logger } from '../../log/logger.ts'
import { createUsageWriter } from '../write-path/usage-writer.ts'
import { StoreEvents } from '../batch-events.ts'
import { StoreConfigError, StoreUnavailableError } from '../errors.ts'
import type { StoreOptions } from '../open.ts'
import { sharedCaches } from '../shared-caches.ts'
import type { StoreHealth, Stores } from '../types.ts'
import { type BatchWrites, startWriteThread, WriteThreadError } from '../write-path/write-thread.ts'
import type { WriteThreadTarget } from '../write-thread-worker.ts'
import { PostgresKeyStore } from './api-keys.ts'
import { PostgresAuditStore } from './audit-log.ts'
import { postgresBatchStore } from './batches.ts'
import { PostgresChanges } from './changes.ts'
import { applyPgMigrations, connectPostgres, drizzleOn, isConnectionError, type PostgresSettings, tlsFailureMessage } from './client.ts'
import { PostgresLease } from './lease.ts'
import { postgresLimitStore } from './limits.ts'
import { postgresMcpStore } from './mcp.ts'
import { postgresMigrations } from './migrations.ts'
import { ensurePartitions } from './partitions.ts'
import { postgresResponseThreadStore } from './response-threads.ts'
import { postgresFileStore } from './files.ts'
import { postgresUploadStore } from './uploads.ts'
import { postgresPriceStore, postgresUsageStore } from './usage.ts'
import { postgresWorkflowStore } from './workflows.ts'

const PROBE_MS = 2_000
const PARTITIONS_MS = 60 * 60_000

export async function openPostgresStores(config: GatewayConfig, log: Logger, options: StoreOptions = {}): Promise<Stores> {
  const settings: PostgresSettings = { url: config.database.url!, poolSize: config.database.pool_size, tls: config.database.tls, tlsCaFile: config.database.tls_ca_file }
  if (settings.tlsCaFile && !existsSync(settings.tlsCaFile)) throw new StoreConfigError(`DATABASE_TLS_CA_FILE (database.tls_ca_file): ${settings.tlsCaFile} does not exist.`)
  const sql = connectPostgres(settings)
  try {
    await applyPgMigrations(sql, postgresMigrations, log)
  } catch (err) {
    const tls = tlsFailureMessage(err, settings)
    if (!tls) throw err
    await sql.close()
    throw new StoreConfigError(tls)
  }
  const db = drizzleOn(sql)
  const lease = new PostgresLease(sql)

  const health: StoreHealth = { backend: 'postgres', reachable: true }
  const down = (err: unknown) => {
    if (!health.reachable) return
    health.reachable = false
    health.unreachableSince = new Date().toISOString()
    health.error = (err as Error)?.message ?? String(err)
    log.error({ err: health.error }, 'PostgreSQL is unreachable; serving from snapshots, audit and usage wait to be written')
  }
  const up = () => {
    if (health.reachable) return
    log.info({ unreachable_since: health.unreachableSince }, 'PostgreSQL is reachable again')
    health.reachable = true
    health.unreachableSince = undefined
    health.error = undefined
  }
  /**
   * A call that reaches PostgreSQL marks it reachable; one that fails to reach it (a connection error here, or a
   * batch the write thread could not deliver) marks it down and becomes a StoreUnavailableError.
   */
  const reaching = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      const result = await call()
      up()
      return result
    } catch (err) {
      if (!(err instanceof WriteThreadError ? err.unreachable : isConnectionError(err))) throw err
      down(err)
      throw new StoreUnavailableError('PostgreSQL', err)
    }
  }
  /** Every method of the store through `reaching`. */
  const guarded = <T extends object>(store: T): T =>
    new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => reaching(() => value.apply(target, args))
      },
    })

  const probe = setInterval(() => {
    sql`SELECT 1`.then(up, down)
  }, PROBE_MS)
  probe.unref?.()
  const makePartitions = () =>
    lease
      .runExclusive('audit-partitions', () => ensurePartitions(sql, Date.now()))
      .catch((err) => log.warn({ err: (err as Error).message }, 'could not create audit partitions; entries go to the default partition meanwhile'))
  await makePartitions()
  const partitions = setInterval(makePartitions, PARTITIONS_MS)
  partitions.unref?.()

  const caches = sharedCaches(config)
  // Without Redis the change feed is PostgreSQL's own LISTEN/NOTIFY.
  const changes = config.redis.url ? caches.changes : await PostgresChanges.open(sql)
  const auditStore = new PostgresAuditStore(sql)
  const usageStore = postgresUsageStore(sql)
  const audit = guarded(auditStore)
  const usage = guarded(usageStore)
  // Batches are encoded and sent by the write thread, on connections of its own; the main connection is the
  // fallback. Unguarded: the sinks below pass every batch, the fallback's too, through `reaching` once.
  const local: BatchWrites = { writeAudit: (rows) => auditStore.writeBatch(rows), writeUsage: (records) => usageStore.writeBatch(records), close() {} }
  const writes = startWriteThread({ backend: 'postgres', settings } satisfies WriteThreadTarget, local, log, options.writeThreadUrl)
  const events = new StoreEvents()
  return {
    events,
    keys: guarded(new PostgresKeyStore(db)),
    workflows: guarded(postgresWorkflowStore(db)),
    limits: guarded(postgresLimitStore(db)),
    prices: guarded(postgresPriceStore(db)),
    audit,
    auditSink: createAuditWriter(config, { writeBatch: (rows) => events.time('audit', 'postgres', () => reaching(() => writes.writeAudit(rows))) }, log),
    usage,
    usageSink: createUsageWriter(config, { writeBatch: (records) => events.time('usage', 'postgres', () => reaching(() => writes.writeUsage(records))) }, log),
    responseThreads: guarded(postgresResponseThreadStore(db)),
    files: guarded(postgresFileStore(db)),
    uploads: guarded(postgresUploadStore(db)),
    mcp: guarded(postgresMcpStore(db)),
    batches: guarded(postgresBatchStore(db)),
    counters: caches.counters,
    responseCache: caches.responseCache,
    changes,
    lease,
    health: () => ({ ...health }),
    async close() {
      clearInterval(probe)
      clearInterval(partitions)
      writes.close()
      if (changes !== caches.changes) await changes.close()
      await caches.close()
      await sql.close()
    },
  }
}
