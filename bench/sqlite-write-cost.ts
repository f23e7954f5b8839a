/**
 * SQLite's cost per audit entry for the store's own batch write, by schema variant: how many database pages each
 * entry dirties (write-ahead-log frames, with the automatic checkpoint off, so every frame counts once) and the CPU
 * it takes, in user and kernel time. bench/audit-cost.ts measures the write thread as a whole; this shows which
 * index its pages and kernel time come from. Each variant and round starts from its own copy of `--db` (a seeded
 * log, bench/audit-seed.ts) and writes `--entries` fresh entries in `--batch`-entry transactions on one connection
 * with the write thread's page cache; the variants take turns round by round.
 *
 *   bun bench/sqlite-write-cost.ts [--db FILE] [--entries 20000] [--batch 1000] [--rounds 3] [--without NAME] … [--every-index]
 *     [--automerge N] … [--pragma P] … [--whole-thread]
 *
 * Without `--db` it starts from an empty database with the gateway's schema (the write thread's throughput on one
 * core, issue 32's target: ≥ 80,000 entries a second). `--whole-thread` times all the write thread does per
 * entry with full batches (its throughput when saturated): the rows unpacked as they arrive from the hand-off
 * (src/stores/write-path/packed-rows.ts), the audit batch stored with the automatic checkpoints on, and one usage
 * record per entry parsed from its batch's JSON and stored, as the defaults meter usage (pages are then not
 * counted: the checkpoints reuse the log). `--every-index` adds one variant per index of the audit
 * tables (and `search`), so the table says what each costs.
 * `--without` (repeatable) adds a variant without one index (its name, e.g. `audit_log_user_path_ts`) or without
 * the search index (`search`: the full-text table replaced by a plain one); `--automerge N` (repeatable) one whose
 * search index merges N segments at a time (FTS5's `automerge`; migration 0013 set 16). The first variant is always
 * `as is`. `--pragma P` (repeatable) adds one with `PRAGMA P` on the writer's connection (e.g. `cache_size=-32768`).
 * Prints the median of the rounds per variant, and the entries a second one core stores at that CPU cost.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { type AuditRow, encodeAuditEntry } from '../src/audit/record.ts'
import { SqliteAuditStore } from '../src/stores/sqlite/audit-log.ts'
import { openSqlite } from '../src/stores/sqlite/client.ts'
import { migrateSqlite } from '../src/stores/sqlite/migrate.ts'
import { WRITE_CACHE_KIB } from '../src/stores/sqlite/thread-writes.ts'
import { sqliteUsageWriter } from '../src/stores/sqlite/usage-writes.ts'
import { packRows, unpackRows } from '../src/stores/write-path/packed-rows.ts'
import type { UsageRecord } from '../src/usage/record.ts'
import { benchAuditEntry, benchUsageRecord } from './audit-entries.ts'

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    entries: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    without: { type: 'string', multiple: true, default: [] },
    'every-index': { type: 'boolean', default: false },
    'whole-thread': { type: 'boolean', default: false },
    automerge: { type: 'string', multiple: true, default: [] },
    pragma: { type: 'string', multiple: true, default: [] },
  },
})
const entries = Number(args.entries)
const batch = Number(args.batch)
const wholeThread = args['whole-thread']
const dir = mkdtempSync(join(tmpdir(), 'sqlite-write-cost-'))
/** The database every variant and round copies: `--db`, or an empty one with the gateway's schema. */
const source = args.db ?? emptyDatabase(join(dir, 'empty.db'))
const variants = [
  'as is',
  ...args.without,
  ...(args['every-index'] ? [...auditIndexes(source), 'search'] : []),
  ...args.automerge.map((n) => `automerge=${Number(n)}`),
  ...args.pragma.map((p) => `PRAGMA ${p}`),
]

function emptyDatabase(path: string): string {
  const db = openSqlite(path)
  migrateSqlite(db)
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  return path
}

/** The indexes of the audit tables, by name (SQLite's own automatic ones left out). */
function auditIndexes(path: string): string[] {
  const db = openSqlite(path)
  const names = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'audit_log%' AND sql IS NOT NULL ORDER BY name").all()
  db.close()
  return names.map((n) => n.name)
}

/** Changes the copy into the variant's schema. */
function applyVariant(db: ReturnType<typeof openSqlite>, variant: string) {
  if (variant === 'as is') return
  if (variant.startsWith('PRAGMA ')) {
    db.exec(variant)
    return
  }
  if (variant.startsWith('automerge=')) {
    db.exec(`INSERT INTO audit_log_search(audit_log_search, rank) VALUES ('automerge', ${Number(variant.slice('automerge='.length))})`)
    return
  }
  if (variant === 'search') {
    db.exec('DROP TABLE audit_log_search')
    db.exec('CREATE TABLE audit_log_search (text TEXT)')
    return
  }
  db.exec(`DROP INDEX "${variant.replaceAll('"', '')}"`)
}

interface Figures {
  pages: number
  user: number
  system: number
  usage: number
}
const results = new Map<string, Figures[]>(variants.map((v) => [v, []]))
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const variant of variants) {
      const path = join(dir, 'copy.db')
      copyFileSync(source, path)
      const db = openSqlite(path)
      db.exec(`PRAGMA cache_size = -${WRITE_CACHE_KIB}`)
      if (!wholeThread) db.exec('PRAGMA wal_autocheckpoint = 0')
      applyVariant(db, variant)
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      const store = new SqliteAuditStore(db)
      const usage = sqliteUsageWriter(db)
      // Entries newer than the whole seeded log, as a running gateway's are.
      const start = Date.now() + round * entries
      const batches: { rows: AuditRow[]; packed: ReturnType<typeof packRows>; usage: string }[] = []
      for (let i = 0; i < entries; i += batch) {
        const made = Array.from({ length: Math.min(batch, entries - i) }, (_, j) => benchAuditEntry(start + i + j, false))
        const rows = made.map((e) => encodeAuditEntry(e))
        batches.push({ rows, packed: packRows(rows), usage: JSON.stringify(made.map(benchUsageRecord)) })
      }
      // The usage batches' share of the whole thread's time, told apart.
      let usageCpu = 0
      const before = process.cpuUsage()
      for (const b of batches) {
        if (!wholeThread) {
          await store.writeBatch(b.rows)
          continue
        }
        await store.writeBatch(unpackRows<AuditRow>(b.packed))
        const u = process.cpuUsage()
        await usage.writeBatch(JSON.parse(b.usage) as UsageRecord[])
        const spent = process.cpuUsage(u)
        usageCpu += spent.user + spent.system
      }
      const used = process.cpuUsage(before)
      const [wal] = db.query<{ log: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').all()
      db.close()
      rmSync(path, { force: true })
      rmSync(`${path}-wal`, { force: true })
      rmSync(`${path}-shm`, { force: true })
      results.get(variant)!.push({ pages: wal!.log / entries, user: used.user / entries, system: used.system / entries, usage: usageCpu / entries })
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const what = wholeThread ? 'the whole write thread: unpack, audit and usage batches, checkpoints on' : "the audit store's batch write, checkpoints off"
console.log(
  `| variant (${what}; ${entries} entries in batches of ${batch}, median of ${args.rounds} rounds, from ${args.db ?? 'an empty database'}) | pages per entry | CPU µs per entry | of which kernel |${wholeThread ? ' of which usage |' : ''} entries/s on one core |`,
)
console.log(`| --- | ---: | ---: | ---: |${wholeThread ? ' ---: |' : ''} ---: |`)
for (const [variant, figures] of results) {
  const pages = median(figures.map((f) => f.pages))
  const cpu = median(figures.map((f) => f.user + f.system))
  const system = median(figures.map((f) => f.system))
  const usage = wholeThread ? ` ${median(figures.map((f) => f.usage)).toFixed(1)} |` : ''
  const name = variant === 'as is' ? 'as is' : variant.startsWith('automerge=') ? `search index ${variant}` : variant.startsWith('PRAGMA ') ? variant : `without ${variant}`
  console.log(`| ${name} | ${wholeThread ? '–' : pages.toFixed(2)} | ${cpu.toFixed(1)} | ${system.toFixed(1)} |${usage} ${Math.round(1e6 / cpu)} |`)
}
