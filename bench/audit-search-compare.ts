/**
 * PostgreSQL full-text search (the `search` tsvector column and its GIN index, what the gateway uses) against
 * pg_trgm trigram indexes on the same searchable fields, on a database seeded with bench/audit-seed.ts --postgres.
 * Builds the trigram index once (an expression index, so nothing else changes), times the page and the exact
 * total of each term over the default 30-day window, interleaved, and prints p50/p95 per variant. The trigram
 * index stays; drop it with `DROP INDEX audit_log_search_trgm` (or throw the database away).
 *
 *   bun bench/audit-search-compare.ts --postgres postgres://… [--runs 15]
 *
 * The two do not mean quite the same: the tsvector matches whole words in order with the last one a prefix
 * (planSearch), the trigram `ILIKE '%…%'` any substring. Terms here find the same entries both ways.
 */
import { parseArgs } from 'node:util'
import { planSearch } from '../src/audit/search.ts'
import { connectPostgres } from '../src/stores/postgres/client.ts'
import { searchQuery } from '../src/stores/postgres/search-vector.ts'

const { values: args } = parseArgs({ options: { postgres: { type: 'string' }, runs: { type: 'string', default: '15' } } })
if (!args.postgres) throw new Error('--postgres URL is required')
const runs = Number(args.runs)
const sql = connectPostgres({ url: args.postgres, poolSize: 1, tls: undefined })

/** The searchable fields of src/audit/search.ts as one text (the error message lives in the light data JSON). */
const TEXT = `(request_id || ' ' || requested_model || ' ' || resolved_model || ' ' || provider || ' ' || provider_name || ' ' || method || ' ' || path || ' ' || session_id || ' ' || error_type || ' ' || COALESCE(data::jsonb ->> 'error_message', ''))`

await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
const t0 = performance.now()
await sql.unsafe(`CREATE INDEX IF NOT EXISTS audit_log_search_trgm ON audit_log USING gin (${TEXT} gin_trgm_ops)`)
await sql`ANALYZE audit_log`
const built = (performance.now() - t0) / 1000
const size = async (pattern: string) =>
  Number((await sql.unsafe(`SELECT COALESCE(sum(pg_relation_size(c.oid)), 0)::float8 AS n FROM pg_class c WHERE c.relkind = 'i' AND c.relname LIKE '${pattern}'`))[0].n) /
  1024 /
  1024

const TERMS = ['engine is currently overloaded', 'rate limit reached', 'deepseek-reas', 'codestral', 'openai']
const from = Date.now() - 29 * 86_400_000

function fullText(term: string): { where: string; param: string } {
  const plan = planSearch(term)
  if (plan.kind !== 'words') throw new Error(`not a word search: ${term}`)
  return { where: 'search @@ $2::tsquery', param: searchQuery(plan.words)! }
}
const trigram = (term: string) => ({ where: `${TEXT} ILIKE $2`, param: `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` })

async function timeOnce(v: { where: string; param: string }): Promise<{ ms: number; total: number }> {
  const start = performance.now()
  const [page, counted] = [
    await sql.unsafe(`SELECT id FROM audit_log WHERE ts >= $1 AND ${v.where} ORDER BY ts DESC, seq DESC LIMIT 25`, [from, v.param]),
    await sql.unsafe(`SELECT count(*)::int AS n FROM audit_log WHERE ts >= $1 AND ${v.where}`, [from, v.param]),
  ]
  void page
  return { ms: performance.now() - start, total: Number(counted[0].n) }
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!

console.log(
  `trigram index built in ${built.toFixed(0)} s: ${(await size('audit_log_p%_expr%')).toFixed(0)} MB; tsvector GIN: ${(await size('audit_log_p%search_idx')).toFixed(0)} MB`,
)
console.log('\n| term | full-text p50 / p95 ms | matches | trigram p50 / p95 ms | matches |\n|---|---:|---:|---:|---:|')
for (const term of TERMS) {
  const ft: number[] = []
  const tg: number[] = []
  let ftTotal = 0
  let tgTotal = 0
  for (let i = 0; i < runs + 1; i++) {
    const a = await timeOnce(fullText(term))
    const b = await timeOnce(trigram(term))
    if (i === 0) continue // warm-up
    ft.push(a.ms)
    tg.push(b.ms)
    ftTotal = a.total
    tgTotal = b.total
  }
  const f = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 95).toFixed(1)}`
  console.log(`| ${term} | ${f(ft)} | ${ftTotal.toLocaleString()} | ${f(tg)} | ${tgTotal.toLocaleString()} |`)
}
await sql.close()
