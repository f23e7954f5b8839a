/**
 * Seeds an audit log SQLite file with realistic entries through the real store (same schema, indexes, FTS and
 * write path as the gateway), spread over the last `--days` days in time order.
 *
 *   bun bench/audit-seed.ts [--file ./data/audit-bench.db] [--rows 1000000] [--days 60] [--batch 5000] [--no-bodies]
 *   bun bench/audit-seed.ts --postgres postgres://… [--rows 1000000] …   (PostgreSQL: migrations, week partitions, VACUUM ANALYZE)
 *
 * Both write through the store's own batch writer, `--batch` rows at a time (on PostgreSQL one transaction of
 * COPYs per batch), so the rows, search index and labels are exactly what the gateway stores, without the request path.
 * 1,000,000 entries with bodies take about 5 minutes on PostgreSQL (3.3 GB, see docs/audit.md).
 *
 * Deterministic (seeded PRNG), so two runs give the same data. Prints the rows/s it reached.
 */
import { existsSync, rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { benchAuditEntry as entry, rand } from './audit-entries.ts'
import { encodeAuditEntry, type AuditRow } from '../src/audit/record.ts'
import { openSqlite } from '../src/stores/sqlite/client.ts'
import { SqliteAuditStore } from '../src/stores/sqlite/audit-log.ts'
import { migrateSqlite } from '../src/stores/sqlite/migrate.ts'
import { silentLogger } from '../src/log/logger.ts'
import { PostgresAuditStore } from '../src/stores/postgres/audit-log.ts'
import { applyPgMigrations, connectPostgres } from '../src/stores/postgres/client.ts'
import { postgresMigrations } from '../src/stores/postgres/migrations.ts'
import { ensurePartitions } from '../src/stores/postgres/partitions.ts'

const { values: args } = parseArgs({
  options: {
    file: { type: 'string', default: './data/audit-bench.db' },
    rows: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '60' },
    batch: { type: 'string', default: '5000' },
    'no-bodies': { type: 'boolean', default: false },
    postgres: { type: 'string' },
  },
})
const rows = Number(args.rows)
const days = Number(args.days)
const batchSize = Number(args.batch)

const end = Date.now()
const start = end - days * 86_400_000
const step = (end - start) / rows
const makeBatch = (i: number, size: number): AuditRow[] => {
  const batch: AuditRow[] = []
  for (let j = i; j < Math.min(rows, i + size); j++) batch.push(encodeAuditEntry(entry(Math.floor(start + j * step + rand() * step), !args['no-bodies'])))
  return batch
}
/** Writes the batches in time order; the next batch is built while the previous one is being stored. */
const seedBatches = async (store: { writeBatch(rows: AuditRow[]): Promise<number> }, size: number) => {
  const t0 = performance.now()
  let written = 0
  let pending: Promise<number> | undefined
  for (let i = 0; i < rows; i += size) {
    const batch = makeBatch(i, size)
    if (pending) written += await pending
    pending = store.writeBatch(batch)
    if ((i / size) % 10 === 0) process.stdout.write(`\r${written.toLocaleString()} rows, ${Math.round(written / ((performance.now() - t0) / 1000)).toLocaleString()} rows/s`)
  }
  if (pending) written += await pending
  return { written, seconds: (performance.now() - t0) / 1000 }
}

if (args.postgres) {
  const sql = connectPostgres({ url: args.postgres, poolSize: 2, tls: undefined })
  await applyPgMigrations(sql, postgresMigrations, silentLogger)
  await ensurePartitions(sql, end, start) // as the gateway keeps them: one per week
  // The store's own batch writer (COPYs in one transaction per batch, as the gateway's writer sends), thousands of
  // rows at a time: the same rows, search vectors and labels the gateway would store, without the request path.
  const { written, seconds } = await seedBatches(new PostgresAuditStore(sql), batchSize)
  // autovacuum vacuums and analyzes a table this size on its own (PostgreSQL 13+ also after inserts); done here so
  // the queries time the steady state and do not race it.
  const v0 = performance.now()
  await sql`VACUUM ANALYZE audit_log`
  await sql`VACUUM ANALYZE audit_log_labels`
  console.log(`\nVACUUM ANALYZE ${((performance.now() - v0) / 1000).toFixed(1)} s`)
  const [size] =
    await sql`SELECT (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c WHERE c.relname LIKE 'audit_log%' AND c.relkind IN ('r', 'p'))::float8 AS n`
  console.log(
    `\nseeded ${written.toLocaleString()} entries in ${seconds.toFixed(1)} s (${Math.round(written / seconds).toLocaleString()} rows/s), ${(size.n / 1024 / 1024).toFixed(0)} MB in PostgreSQL`,
  )
  await sql.close()
  process.exit(0)
}

if (existsSync(args.file)) for (const suffix of ['', '-wal', '-shm']) rmSync(args.file + suffix, { force: true })
const db = openSqlite(args.file)
db.exec('PRAGMA synchronous = OFF') // seeding only: the gateway keeps NORMAL
migrateSqlite(db)
const store = new SqliteAuditStore(db)
const { written, seconds } = await seedBatches(store, batchSize)
// No ANALYZE: the gateway never runs one, so the queries are timed with the migration's nominal statistics.
db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
const size = db.query<{ n: number }, []>('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get()?.n ?? 0
console.log(
  `\nseeded ${written.toLocaleString()} entries in ${seconds.toFixed(1)} s (${Math.round(written / seconds).toLocaleString()} rows/s), ${(size / 1024 / 1024).toFixed(0)} MB: ${args.file}`,
)
db.close()
