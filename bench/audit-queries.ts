/**
 * Times the audit admin queries against a seeded file (bench/audit-seed.ts), through the same parameter parsing
 * and store the admin API uses. Targets: list p95 < 100 ms, detail p95 < 20 ms.
 *
 *   bun bench/audit-queries.ts [--file ./data/audit-bench.db] [--runs 40]
 *   bun bench/audit-queries.ts --postgres postgres://… [--runs 40]   (a database seeded with audit-seed.ts --postgres)
 *
 * Each case runs `--runs` times after two warm-up runs; the page offset varies (0–4 pages deep) so results do not
 * come from one cached page. Prints p50/p95/max in milliseconds and the match count.
 *
 *   bun bench/audit-queries.ts --postgres postgres://… --explain 5
 *
 * instead runs each list case's statement under EXPLAIN (ANALYZE) that many times and prints the median planning
 * and execution times PostgreSQL reports: less sensitive to the machine's load than the client's clock.
 *
 * The lists count their matches up to 10,000 as the admin API does by default; `--exact-total` asks every case for
 * the exact total (`exact_total=true`), and `--pair` times both, run by run alternately (same load for both).
 */
import { parseArgs } from 'node:util'
import { parseAuditLogQuery } from '../src/audit/query.ts'
import { openSqlite } from '../src/stores/sqlite/client.ts'
import { SqliteAuditStore } from '../src/stores/sqlite/audit-log.ts'
import { listStatement, PostgresAuditStore } from '../src/stores/postgres/audit-log.ts'
import { connectPostgres } from '../src/stores/postgres/client.ts'

const { values: args } = parseArgs({
  options: {
    file: { type: 'string', default: './data/audit-bench.db' },
    runs: { type: 'string', default: '40' },
    postgres: { type: 'string' },
    explain: { type: 'string' },
    'exact-total': { type: 'boolean', default: false },
    pair: { type: 'boolean', default: false },
  },
})
/** The query parameters each timed variant adds to a case. */
const VARIANTS: [string, string][] = args.pair
  ? [
      ['counted up to 10,000', ''],
      ['exact total', 'exact_total=true'],
    ]
  : [[args['exact-total'] ? 'exact total' : 'counted up to 10,000', args['exact-total'] ? 'exact_total=true' : '']]
const runs = Number(args.runs)

type Sample = { id: string; session_id: string; request_id: string; user_path: string }
interface Source {
  name: string
  store: Pick<SqliteAuditStore, 'list' | 'get'>
  sample(): Promise<Sample | undefined>
  ids(): Promise<string[]>
  total(): Promise<number>
  close(): Promise<void>
}

async function source(): Promise<Source> {
  const SAMPLE = "SELECT id, session_id, request_id, user_path FROM audit_log WHERE session_id <> '' AND request_id LIKE 'req_%' ORDER BY ts DESC LIMIT 1 OFFSET 5000"
  if (args.postgres) {
    const sql = connectPostgres({ url: args.postgres, poolSize: 4, tls: undefined })
    return {
      name: 'PostgreSQL',
      store: new PostgresAuditStore(sql),
      sample: async () => (await sql.unsafe(SAMPLE))[0] as Sample | undefined,
      ids: async () => (await sql.unsafe('SELECT id FROM audit_log WHERE seq % 997 = 0 LIMIT 400')).map((r: { id: string }) => r.id),
      total: async () => Number((await sql.unsafe('SELECT count(*)::int AS n FROM audit_log'))[0].n),
      close: () => sql.close(),
    }
  }
  const db = openSqlite(args.file)
  return {
    name: args.file,
    store: new SqliteAuditStore(db),
    sample: async () => db.query<Sample, []>(SAMPLE).get() ?? undefined,
    ids: async () =>
      db
        .query<{ id: string }, []>('SELECT id FROM audit_log WHERE seq % 997 = 0 LIMIT 400')
        .all()
        .map((r) => r.id),
    total: async () => db.query<{ n: number }, []>('SELECT COUNT(*) AS n FROM audit_log').get()!.n,
    close: async () => db.close(),
  }
}

const src = await source()
const store = src.store
const sample = await src.sample()
if (!sample) throw new Error(`no seeded entries in ${src.name}; run bench/audit-seed.ts first`)
const ids = await src.ids()
const team = sample.user_path.split('/').slice(0, 3).join('/')

const LIST_CASES: [string, string][] = [
  ['list default (30 days)', ''],
  ['list days=1', 'days=1'],
  ['filter requested_model', 'requested_model=openai/gpt-4o'],
  ['filter provider (name or type)', 'provider=openai'],
  ['filter provider by name only', 'provider=azure-east'],
  ['filter status_code=429', 'status_code=429'],
  ['filter error_type', 'error_type=provider_error'],
  ['filter user_path subtree', `user_path=${team}`],
  ['filter session_id (whole session)', `session_id=${sample.session_id}`],
  ['filter stream=true', 'stream=true'],
  ['filter method', 'method=GET'],
  ['filter path', 'path=/v1/responses'],
  ['filter method+path', 'method=GET&path=/v1/models'],
  ['filter label', 'label=canary'],
  ['filter label + status_code', 'label=eval&status_code=503'],
  ['filter model+status+dates', `requested_model=fast&status_code=200&start_date=${day(-20)}&end_date=${day(-10)}`],
  ['search UUID (entry id)', `search=${sample.id}`],
  ['search client request id', `search=${sample.request_id}`],
  ['search rare words', 'search=engine is currently overloaded'],
  ['search model prefix', 'search=deepseek-reas'],
  ['search common word', 'search=openai'],
  ['search common word + stream filter', 'search=openai&stream=true'],
  ['search rare words + user_path', `search=rate limit reached&user_path=${team}`],
]

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
}

const fmt = (n: number) => n.toFixed(1)

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

type Timing = { p50: number; p95: number; max: number }
/** Times each runner `runs` times after two warm-ups, the runners taking turns run by run. */
async function timeEach(runners: ((i: number) => Promise<unknown>)[]): Promise<Timing[]> {
  for (let i = 0; i < 2; i++) for (const run of runners) await run(i)
  const samples: number[][] = runners.map(() => [])
  for (let i = 0; i < runs; i++)
    for (const [r, run] of runners.entries()) {
      const t0 = performance.now()
      await run(i)
      samples[r]!.push(performance.now() - t0)
    }
  return samples.map((xs) => {
    xs.sort((a, b) => a - b)
    return { p50: percentile(xs, 50), p95: percentile(xs, 95), max: xs.at(-1)! }
  })
}
const time = async (run: (i: number) => Promise<unknown>) => (await timeEach([run]))[0]!

if (args.explain !== undefined) {
  if (!args.postgres) throw new Error('--explain needs --postgres')
  await explainCases(args.postgres, Number(args.explain) || 5)
  await src.close()
  process.exit(0)
}

type PlanNode = {
  'Index Name'?: string
  'Relation Name'?: string
  'Node Type'?: string
  'Actual Rows'?: number
  'Rows Removed by Filter'?: number
  Plans?: PlanNode[]
}
/** The indexes a plan reads, by their partitioned index's name (not audit_log_w20261123_ts_seq_idx). */
function indexNames(node: PlanNode | undefined, into: Set<string>, parentIndex: Map<string, string>) {
  if (!node) return
  const index = node['Index Name']
  if (index) into.add(parentIndex.get(index) ?? index)
  // A sequential scan that read rows (the empty DEFAULT and future partitions are scanned for nothing).
  const read = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] && read > 0) into.add(`seq scan of ${node['Relation Name'].replace(/_(w|p)\d{8}$|_default$/, '')}`)
  for (const child of node.Plans ?? []) indexNames(child, into, parentIndex)
}

/** Median planning and execution time of each list case's statement, as EXPLAIN (ANALYZE) reports them. */
async function explainCases(url: string, times: number) {
  const sql = connectPostgres({ url, poolSize: 1, tls: undefined })
  /** Partition index name → the partitioned index it belongs to. */
  const parentIndex = new Map<string, string>()
  for (const r of await sql.unsafe(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE c.relkind = 'i'`,
  ))
    parentIndex.set(r.child, r.parent)
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  console.log(`EXPLAIN (ANALYZE) of each list statement (${VARIANTS[0]![0]}), median of ${times}\n`)
  console.log('| case | planning ms | execution ms | indexes read |')
  console.log('|---|---:|---:|---|')
  for (const [name, params] of LIST_CASES) {
    const plan: number[] = []
    const exec: number[] = []
    const indexes = new Set<string>()
    for (let i = 0; i < times; i++) {
      const q = new URLSearchParams(`${params}&${VARIANTS[0]![1]}`)
      q.set('offset', String((i % 5) * 25))
      const { text, params: values } = listStatement(parseAuditLogQuery(q))
      const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values)
      const out = row['QUERY PLAN'] as { 'Planning Time': number; 'Execution Time': number; Plan: PlanNode }[] | string
      const [report] = typeof out === 'string' ? JSON.parse(out) : out
      plan.push(report['Planning Time'])
      exec.push(report['Execution Time'])
      indexNames(report.Plan, indexes, parentIndex)
    }
    console.log(`| ${name} | ${fmt(median(plan))} | ${fmt(median(exec))} | ${[...indexes].sort().join(', ')} |`)
  }
  await sql.close()
}

const total = await src.total()
console.log(`${src.name}: ${total.toLocaleString()} entries, ${runs} runs per case${args.pair ? ', the two variants alternating' : ''}\n`)
console.log(`| case | ${VARIANTS.map(([v]) => `${v}: p50 / p95 / max ms | matches`).join(' | ')} |`)
console.log(`|---|${VARIANTS.map(() => '---:|---:|').join('')}`)
let worstList = 0
for (const [name, params] of LIST_CASES) {
  const matches: string[] = VARIANTS.map(() => '')
  const timings = await timeEach(
    VARIANTS.map(([, extra], v) => async (i) => {
      const q = new URLSearchParams(`${params}&${extra}`)
      q.set('offset', String((i % 5) * 25))
      const page = await store.list(parseAuditLogQuery(q))
      matches[v] = `${page.total.toLocaleString()}${page.total_relation === 'gte' ? '+' : ''}`
    }),
  )
  worstList = Math.max(worstList, timings[0]!.p95)
  console.log(`| ${name} | ${timings.map((t, v) => `${fmt(t.p50)} / ${fmt(t.p95)} / ${fmt(t.max)} | ${matches[v]}`).join(' | ')} |`)
}
const detail = await time(async (i) => {
  const entry = await store.get(ids[i % ids.length]!)
  if (!entry) throw new Error('missing entry')
})
console.log(`| detail by id | ${fmt(detail.p50)} | ${fmt(detail.p95)} | ${fmt(detail.max)} | 1 |`)
console.log(`\nworst list p95 (${VARIANTS[0]![0]}) ${fmt(worstList)} ms (target < 100), detail p95 ${fmt(detail.p95)} ms (target < 20)`)
await src.close()
