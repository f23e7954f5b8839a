/**
 * PostgreSQL's CPU per audit entry for the store's own batch statement, by schema variant: where the server's time
 * per request goes (bench/postgres.sh measures the whole gateway; this isolates the audit insert). Each variant gets
 * a database of its own on the given cluster (migrations, partitions, then the variant's SQL); the variants take
 * turns round by round, so drift on a shared machine hits them alike.
 *
 *   bun bench/postgres-write-cost.ts --postgres postgres://…/postgres [--rows 20000] [--batch 190] [--rounds 3]
 *     [--shape gateway|seed] [--variant 'name=SQL; SQL'] …
 *
 * Per variant and round: the server process's CPU while it stores `--rows` entries in `--batch`-row batches (its
 * `schedstat`, nanoseconds; the statements run on one connection), then the CPU of a `VACUUM` of the tables it
 * wrote (what autovacuum would spend later: the visibility map, the GIN index's pending list), both per entry.
 * `--shape gateway` writes entries like bench/postgres.sh's traffic (chat completions, 200, not streamed, no
 * session, no labels, the key's root user path); `seed` the mixed entries of bench/audit-seed.ts.
 * Prints the median of the rounds per variant. The server must run on this machine (it reads /proc).
 */
import { SQL } from 'bun'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { benchAuditEntry } from './audit-entries.ts'
import { encodeAuditEntry } from '../src/audit/record.ts'
import { silentLogger } from '../src/log/logger.ts'
import { PostgresAuditStore } from '../src/stores/postgres/audit-log.ts'
import { applyPgMigrations } from '../src/stores/postgres/client.ts'
import { postgresMigrations } from '../src/stores/postgres/migrations.ts'
import { ensurePartitions } from '../src/stores/postgres/partitions.ts'

const { values: args } = parseArgs({
  options: {
    postgres: { type: 'string' },
    rows: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '190' },
    rounds: { type: 'string', default: '3' },
    shape: { type: 'string', default: 'gateway' },
    variant: { type: 'string', multiple: true, default: [] },
  },
})
if (!args.postgres) throw new Error('--postgres URL (a database of the cluster; one database per variant is created beside it)')
const rows = Number(args.rows)
const batchSize = Number(args.batch)
const rounds = Number(args.rounds)
const variants: [string, string][] = [['current', ''], ...(args.variant ?? []).map((v): [string, string] => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)])]

function entry(ts: number) {
  const e = benchAuditEntry(ts, true)
  if (args.shape === 'seed') return e
  Object.assign(e, {
    request_id: e.id,
    requested_model: 'openai/gpt-4o-mini',
    resolved_model: 'openai/gpt-4o-mini',
    provider: 'openai',
    provider_name: 'openai',
    method: 'POST',
    path: '/v1/chat/completions',
    status_code: 200,
    stream: false,
    error_type: '',
    session_id: '',
    user_path: '/',
  })
  for (const k of ['labels', 'error_code', 'error_message', 'error_provider'] as const) delete e.data[k]
  return e
}

/** Nanoseconds a process has run (its schedstat), 0 when it is gone. */
const runNs = (pid: number) => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return 0
  }
}

const databases = new Map<string, SQL>()
const admin = new SQL({ url: args.postgres, max: 1 })
for (const [name, ddl] of variants) {
  const db = `write_cost_${name.replace(/\W/g, '_')}`
  await admin.unsafe(`DROP DATABASE IF EXISTS ${db}`)
  await admin.unsafe(`CREATE DATABASE ${db}`)
  const url = new URL(args.postgres)
  url.pathname = `/${db}`
  const sql = new SQL({ url: url.toString(), max: 1 })
  await applyPgMigrations(sql, postgresMigrations, silentLogger)
  await ensurePartitions(sql, Date.now())
  if (ddl) await sql.unsafe(ddl).simple()
  databases.set(name, sql)
}

const results = new Map<string, { insert: number[]; vacuum: number[] }>(variants.map(([n]) => [n, { insert: [], vacuum: [] }]))
let at = Date.now() - 60 * 60_000
for (let round = 0; round < rounds; round++) {
  // The same entries for every variant in a round.
  const batches = Array.from({ length: Math.ceil(rows / batchSize) }, () =>
    Array.from({ length: batchSize }, () => encodeAuditEntry(entry((at += 1 + Math.floor(Math.random() * 3))))),
  )
  for (const [name] of variants) {
    const sql = databases.get(name)!
    const store = new PostgresAuditStore(sql)
    const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`
    const t0 = runNs(pid)
    for (const batch of batches) await store.writeBatch(batch)
    const t1 = runNs(pid)
    await sql`VACUUM audit_log, audit_log_payloads, audit_log_labels`
    const t2 = runNs(pid)
    const n = batches.length * batchSize
    results.get(name)!.insert.push((t1 - t0) / 1000 / n)
    results.get(name)!.vacuum.push((t2 - t1) / 1000 / n)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`${rows} entries a round (${args.shape} shape, ${batchSize}-entry batches), ${rounds} rounds; server CPU µs per entry, median of the rounds\n`)
console.log('| variant | insert | vacuum | both | rounds (insert) |\n|---|---:|---:|---:|---|')
for (const [name] of variants) {
  const r = results.get(name)!
  const ins = median(r.insert)
  const vac = median(r.vacuum)
  console.log(`| ${name} | ${ins.toFixed(1)} | ${vac.toFixed(1)} | ${(ins + vac).toFixed(1)} | ${r.insert.map((x) => x.toFixed(1)).join(', ')} |`)
}
for (const sql of databases.values()) await sql.close()
for (const [name] of variants) await admin.unsafe(`DROP DATABASE IF EXISTS write_cost_${name.replace(/\W/g, '_')}`)
await admin.close()
console.log(`\nload average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
