/**
 * Audit and usage cost per entry on each thread, without HTTP: the gateway's own SQLite stores (write thread,
 * audit writer, usage writer, as src/stores/sqlite/open.ts wires them) fed realistic entries (bench/audit-entries.ts,
 * without bodies, as the defaults log them), `--rate` a second in bursts of `--burst` (so the writer's
 * batches are the size a gateway serving that many requests makes). CPU time per thread is read from /proc/self/task/<tid>/schedstat (nanoseconds), so the
 * figures are CPU µs per entry on the request thread and on the write thread, which a busy machine inflates far
 * less than it does requests/s.
 *
 *   bun bench/audit-cost.ts [--entries 20000] [--rounds 3] [--rate 5000] [--burst 50] [--batch 1000] [--db FILE]
 *
 * Stages: `encode` is encodeAuditEntry alone (row built, JSON and search text made); `audit record + hand-off`
 * is AuditWriter.record for every entry and the writer's batches posted to the write thread, until all are
 * stored; `store` is the write thread's CPU for them (and the part of it spent in the kernel, reading and writing
 * database pages: most of it from a large `--db`); `other threads` is everything else of the process meanwhile
 * (mostly JavaScriptCore's JIT compiler, still tiering up the writer's code after the warm-up, and mimalloc's
 * scavenger; the GC helpers take little); the usage lines are the same for one usage record per
 * entry. Building the entry from a request (src/audit/capture.ts) needs a request and is not timed here
 * (bench/features.sh measures the whole request). `--db` starts from a copy of a seeded database (bench/audit-seed.ts),
 * to see the store's cost at that size; `--batch` is the audit writer's batch size
 * (`LOGGING_AUDIT_BATCH_SIZE`). Prints the median over `--rounds` rounds.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { encodeAuditEntry } from '../src/audit/record.ts'
import { loadConfig } from '../src/config/load.ts'
import { silentLogger } from '../src/log/logger.ts'
import { openSqliteStores } from '../src/stores/sqlite/open.ts'
import { benchAuditEntry, benchUsageRecord as usageOf } from './audit-entries.ts'

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    burst: { type: 'string', default: '50' },
    rate: { type: 'string', default: '5000' },
    db: { type: 'string' },
    batch: { type: 'string' },
  },
})
const entries = Number(args.entries)
const burst = Number(args.burst)
/** Milliseconds between bursts: entries arrive at `--rate` a second, as from a gateway serving that many requests. */
const gapMs = (burst / Number(args.rate)) * 1000

/** Nanoseconds per clock tick of /proc/<pid>/task/<tid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICK_NS = 10_000_000

/**
 * CPU nanoseconds so far of the main thread, of the thread(s) named `Worker` (the write thread) and of the rest
 * (GC helpers, JIT); `writeSystem` is the write thread's part in the kernel (reading and writing database pages),
 * from `stat` in 10 ms ticks, so only meaningful over many entries.
 */
function threadCpu(): { main: number; write: number; writeSystem: number; other: number } {
  let main = 0
  let write = 0
  let writeSystem = 0
  let other = 0
  for (const tid of readdirSync('/proc/self/task')) {
    let ns: number
    let comm: string
    let stat: string
    try {
      ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0])
      comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    } catch {
      continue // the thread ended meanwhile
    }
    if (Number(tid) === process.pid) main += ns
    else if (comm === 'Worker') {
      write += ns
      // Fields after the command's closing parenthesis: stime is the 13th.
      writeSystem += Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]) * TICK_NS
    } else other += ns
  }
  return { main, write, writeSystem, other }
}

const dir = mkdtempSync(join(tmpdir(), 'audit-cost-'))
const results: Record<string, number[]> = {}
const note = (stage: string, ns: number) => (results[stage] ??= []).push(ns / 1000 / entries)

try {
  for (let round = 0; round < Number(args.rounds); round++) {
    const path = join(dir, `round-${round}.db`)
    if (args.db) copyFileSync(args.db, path)
    const stores = await openSqliteStores(loadConfig({ env: { GATEWAY_DB_PATH: path, ...(args.batch ? { LOGGING_AUDIT_BATCH_SIZE: args.batch } : {}) } }), silentLogger)
    const start = Date.now()
    const batch = Array.from({ length: entries }, (_, i) => benchAuditEntry(start + i, false))
    const usage = batch.map(usageOf)
    // Warm the JIT on a tenth of the load through every stage (stored too, as a running gateway's would be), so
    // the JIT compiler's thread is mostly idle while measuring.
    const warm = batch.slice(0, entries / 10).map((e) => ({ ...e, id: `${e.id}w` }))
    for (const e of warm) encodeAuditEntry(e)
    for (const e of warm) stores.auditSink.record(e)
    for (const r of warm.map(usageOf)) stores.usageSink.record(r)
    await stores.auditSink.flush()
    await stores.usageSink.flush()
    Bun.gc(true)

    let t = threadCpu()
    for (const e of batch) encodeAuditEntry(e)
    note('encode (request thread)', threadCpu().main - t.main)

    t = threadCpu()
    for (let i = 0; i < entries; i += burst) {
      for (const e of batch.slice(i, i + burst)) stores.auditSink.record(e)
      await Bun.sleep(gapMs)
    }
    await stores.auditSink.flush()
    let t1 = threadCpu()
    note('audit record + hand-off (request thread)', t1.main - t.main)
    note('audit store (write thread)', t1.write - t.write)
    note('audit store (write thread), of which system time', t1.writeSystem - t.writeSystem)
    note('audit, other threads (GC helpers, JIT)', t1.other - t.other)

    t = threadCpu()
    for (let i = 0; i < entries; i += burst) {
      for (const r of usage.slice(i, i + burst)) stores.usageSink.record(r)
      await Bun.sleep(gapMs)
    }
    await stores.usageSink.flush()
    t1 = threadCpu()
    note('usage record + hand-off (request thread)', t1.main - t.main)
    note('usage store (write thread)', t1.write - t.write)

    const stats = stores.auditSink.stats()
    if (stats.written < entries + warm.length || stats.spilled > 0)
      throw new Error(`${stats.written} of ${entries + warm.length} audit entries stored, ${stats.spilled} spilled: lower --rate`)
    await stores.auditSink.drain()
    await stores.usageSink.drain()
    await stores.close()
    rmSync(path, { force: true })
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`| stage (${entries} entries, median of ${args.rounds} rounds${args.db ? `, from ${args.db}` : ''}) | CPU µs per entry |\n| --- | ---: |`)
for (const [stage, values] of Object.entries(results)) console.log(`| ${stage} | ${median(values).toFixed(1)} |`)
