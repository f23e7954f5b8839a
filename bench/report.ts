/**
 * @module Turns one benchmark run (results.jsonl + meta.json written by bench/run.sh) into the Markdown report:
 * the machine, one table per measurement, and the issue-2 targets with their verdicts.
 *
 * Usage: bun bench/report.ts <run dir>
 */
import { readFileSync } from 'node:fs'
import { availableParallelism, release } from 'node:os'
import { join } from 'node:path'

interface WrkRow {
  target: string
  kind: 'load' | 'c1' | 'stream'
  connections: number
  upstream_requests: number
  cpu_ticks: number
  mock_ticks: number
  wrk_ticks: number
  machine_busy_ticks: number
  machine_total_ticks: number
  clk_tck: number
  requests: number
  duration_us: number
  errors_connect: number
  errors_read: number
  errors_write: number
  errors_status: number
  errors_timeout: number
  p50_us: number
  p90_us: number
  p99_us: number
  max_us: number
  mean_us: number
}
interface TtfbRow {
  target: string
  /** `ttfb`: one stream at a time (meta.ttfb_lanes lanes); `ttfb-concurrent`: meta.ttfb_concurrent streams at once, each timed. */
  kind: 'ttfb' | 'ttfb-concurrent'
  requests: number
  ok: number
  failures: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  mean_ms: number
}
interface MemoryRow {
  target: string
  kind: 'memory'
  peak_rss_kb: number
  rss_kb: number
}
interface SkippedRow {
  target: string
  kind: 'skipped'
  reason: string
}
type Row = WrkRow | TtfbRow | MemoryRow | SkippedRow

const runDir = process.argv[2]
if (!runDir) {
  console.error('usage: bun bench/report.ts <run dir>')
  process.exit(2)
}
const meta = JSON.parse(readFileSync(join(runDir, 'meta.json'), 'utf8'))
const rows: Row[] = readFileSync(join(runDir, 'results.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))

const targets = [...new Set(rows.map((r) => r.target))]
function find(target: string, kind: WrkRow['kind']): WrkRow | undefined
function find(target: string, kind: TtfbRow['kind']): TtfbRow | undefined
function find(target: string, kind: 'memory'): MemoryRow | undefined
function find(target: string, kind: Row['kind']): Row | undefined {
  return rows.find((r) => r.target === target && r.kind === kind)
}

/** Share of the machine used by other processes above which a measured run is flagged as noisy. */
const NOISE_PCT = 5
const rps = (r?: WrkRow) => (r ? r.requests / (r.duration_us / 1e6) : NaN)
const errors = (r?: WrkRow) => (r ? r.errors_connect + r.errors_read + r.errors_write + r.errors_status + r.errors_timeout : NaN)
const ms = (us?: number) => (us === undefined ? NaN : us / 1000)
/** CPU used by everything except the proxy, the mock and wrk, as a share of the whole machine. */
const otherCpuPct = (r?: WrkRow) =>
  r && r.machine_total_ticks ? (100 * Math.max(0, r.machine_busy_ticks - r.cpu_ticks - r.mock_ticks - r.wrk_ticks)) / r.machine_total_ticks : NaN
const cpuPerRequestUs = (r?: WrkRow) => (r && r.requests ? ((r.cpu_ticks / r.clk_tck) * 1e6) / r.requests : NaN)

function fmt(n: number, digits = 2): string {
  if (!Number.isFinite(n)) return '–'
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}
const int = (n: number) => fmt(n, 0)
const signed = (n: number, digits = 2) => (Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${fmt(n, digits)}` : '–')

function errorCell(r?: WrkRow): string {
  if (!r) return '–'
  const parts: string[] = []
  if (r.errors_status) parts.push(`${r.errors_status} non-2xx`)
  if (r.errors_timeout) parts.push(`${r.errors_timeout} timeout`)
  if (r.errors_connect + r.errors_read + r.errors_write) parts.push(`${r.errors_connect + r.errors_read + r.errors_write} socket`)
  return parts.length ? `**${parts.join(', ')}**` : '0'
}
function reachedCell(r?: WrkRow): string {
  if (!r) return '–'
  // In-flight requests when wrk stops reach the mock without being counted by wrk: >= is the check.
  return r.upstream_requests >= r.requests ? `yes (${int(r.upstream_requests)})` : `**only ${fmt((100 * r.upstream_requests) / r.requests, 1)} %**`
}

function table(head: string[], body: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...body.map(line)].join('\n')
}

/** A `## title` section holding one table. */
function section(title: string, head: string[], body: string[][]): void {
  out.push(`## ${title}`, '', table(head, body), '')
}

function commandOutput(cmd: string[]): string {
  try {
    const p = Bun.spawnSync(cmd)
    return `${p.stdout.toString()}${p.stderr.toString()}`.split('\n')[0]!.trim()
  } catch {
    return 'not installed'
  }
}

const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
const cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown'
const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? NaN)

const out: string[] = []
out.push('# Proxy overhead benchmark')
out.push('')
out.push(
  `Run ${meta.stamp}; gateway code: ${meta.gateway_ref ? `commit ${meta.git_rev} (GATEWAY_REF=${meta.gateway_ref})` : `working tree at ${meta.git_rev}${meta.git_dirty ? ' + uncommitted changes in src/ or plugins/' : ''}`}` +
    `${meta.gateway_extra_env ? `, extra env \`${meta.gateway_extra_env}\`` : ''}; ${meta.elapsed_s} s of measuring. ` +
    `Load average before/after: ${meta.load_before} / ${meta.load_after}.`,
)
out.push('')
out.push(
  '**Machine:** ' +
    [
      `${availableParallelism()} CPUs (nproc), ${cpuModel}`,
      `${fmt(memKb / 1024 / 1024, 1)} GiB RAM`,
      `Linux ${release()}`,
      `bun ${Bun.version}`,
      commandOutput(['nginx', '-v']).replace('nginx version: ', ''),
      commandOutput(['wrk', '-v'])
        .replace(/ Copyright.*$/, '')
        .replace(/^wrk /, 'wrk '),
      `node ${commandOutput(['node', '-v'])}`,
    ].join(' · '),
)
out.push('')
out.push(
  `**Load:** wrk ${meta.wrk_threads} thread(s), POST /v1/chat/completions with a small chat body; ${meta.warmup_s} s warm-up per target, ` +
    `${meta.duration_s} s per measured run, ${meta.c1_duration_s} s at concurrency 1. Mock upstream: instant JSON; streams are ` +
    `${meta.stream_chunks} content chunks ${meta.stream_interval_ms} ms apart (first chunk at once). nginx: ${meta.nginx_workers} worker(s). ` +
    `Portkey: @portkey-ai/gateway ${meta.portkey_version} on Node (with @hono/node-server ${meta.portkey_node_server_version}). ` +
    `LiteLLM: litellm[proxy] ${meta.litellm_version ?? '?'} (Python), one worker, no database.`,
)
out.push('')

const skipped = rows.filter((r): r is SkippedRow => r.kind === 'skipped')
for (const s of skipped) out.push(`> **${s.target} skipped:** ${s.reason}`)
if (skipped.length) out.push('')

const measured = targets.filter((t) => find(t, 'load'))
const mockC1 = find('mock', 'c1')
const mockTtfb = find('mock', 'ttfb')

section(
  `Throughput: non-streaming, ${meta.connections} connections`,
  ['Target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU µs/req', 'peak RSS MiB', 'reached the mock', 'other CPU %'],
  measured.map((t) => {
    const r = find(t, 'load')
    const m = find(t, 'memory')
    return [
      t,
      int(rps(r)),
      fmt(ms(r?.p50_us)),
      fmt(ms(r?.p99_us)),
      errorCell(r),
      int(cpuPerRequestUs(r)),
      m ? fmt(m.peak_rss_kb / 1024, 0) : '–',
      reachedCell(r),
      fmt(otherCpuPct(r), 1),
    ]
  }),
)
section(
  'Latency at concurrency 1 (wrk -t1 -c1), non-streaming',
  ['Target', 'req/s', 'p50 ms', 'p99 ms', 'added p50 vs mock, ms'],
  measured.map((t) => {
    const r = find(t, 'c1')
    return [t, int(rps(r)), fmt(ms(r?.p50_us), 3), fmt(ms(r?.p99_us), 3), t === 'mock' ? '–' : signed(ms(r?.p50_us) - ms(mockC1?.p50_us), 3)]
  }),
)
section(
  `Streaming: ${meta.stream_connections} concurrent streams (wrk)`,
  ['Target', 'streams/s', 'stream p50 ms', 'stream p99 ms', 'errors', 'CPU µs/stream'],
  measured.map((t) => {
    const r = find(t, 'stream')
    return [t, int(rps(r)), fmt(ms(r?.p50_us), 1), fmt(ms(r?.p99_us), 1), errorCell(r), int(cpuPerRequestUs(r))]
  }),
)
const mockConcurrentTtfb = find('mock', 'ttfb-concurrent')
const ttfbCells = (f: TtfbRow | undefined, mock: TtfbRow | undefined, t: string) => [
  fmt(f?.p50_ms ?? NaN, 3) + (f?.failures ? ` (**${f.failures} failed**)` : ''),
  fmt(f?.p99_ms ?? NaN, 3),
  t === 'mock' ? '–' : signed((f?.p50_ms ?? NaN) - (mock?.p50_ms ?? NaN), 3),
]
section(
  `Time to first byte: one stream at a time (${meta.ttfb_requests} streams, ${meta.ttfb_lanes} lane(s)), and ${meta.ttfb_concurrent ?? '–'} streams at once, each timed (${meta.ttfb_concurrent_requests ?? '–'} streams)`,
  ['Target', 'one at a time p50 ms', 'p99 ms', 'added p50 vs mock, ms', `${meta.ttfb_concurrent ?? '–'} at once p50 ms`, 'p99 ms', 'added p50 vs mock, ms'],
  measured.map((t) => [t, ...ttfbCells(find(t, 'ttfb'), mockTtfb, t), ...ttfbCells(find(t, 'ttfb-concurrent'), mockConcurrentTtfb, t)]),
)

const gw = rps(find('gateway', 'load'))
const core = rps(find('gateway-core', 'load'))
const ngx = rps(find('nginx', 'load'))
const pk = rps(find('portkey', 'load'))
const bare = rps(find('bun-proxy', 'load'))
const addedC1 = ms(find('gateway', 'c1')?.p50_us) - ms(mockC1?.p50_us)
const addedC1Core = ms(find('gateway-core', 'c1')?.p50_us) - ms(mockC1?.p50_us)
const verdict = (ok: boolean, value: number) => (Number.isFinite(value) ? (ok ? 'PASS' : '**FAIL**') : 'not measured')

section(
  'Issue 2 targets',
  ['Check', 'Measured', 'Target', 'Result'],
  [
    ['gateway-core / nginx throughput', `${fmt((100 * core) / ngx, 1)} %`, '≥ 40 %', verdict(core / ngx >= 0.4, core / ngx)],
    ['gateway-core / Portkey throughput', `${fmt(core / pk, 1)}×`, '≥ 15×', verdict(core / pk >= 15, core / pk)],
    ['added p50 latency at concurrency 1 (gateway-core − mock)', `${fmt(addedC1Core, 3)} ms`, '≤ 0.3 ms', verdict(addedC1Core <= 0.3, addedC1Core)],
    ['gateway (defaults: + audit, usage) / nginx throughput', `${fmt((100 * gw) / ngx, 1)} %`, '≥ 40 %', verdict(gw / ngx >= 0.4, gw / ngx)],
    ['gateway (defaults) / Portkey throughput', `${fmt(gw / pk, 1)}×`, '≥ 15×', verdict(gw / pk >= 15, gw / pk)],
    ['(reference) gateway (defaults) / LiteLLM throughput', `${fmt(gw / rps(find('litellm', 'load')), 1)}×`, '–', '–'],
    ['added p50 latency at concurrency 1 (gateway defaults − mock)', `${fmt(addedC1, 3)} ms`, '≤ 0.3 ms', verdict(addedC1 <= 0.3, addedC1)],
    ['(reference) gateway / bare Bun proxy throughput', `${fmt((100 * gw) / bare, 1)} %`, '–', '–'],
    ...(['gateway-anthropic', 'gateway-gemini'] as const).map((t) => [
      `(issue 5) ${t} / gateway throughput (translation cost)`,
      `${fmt((100 * rps(find(t, 'load'))) / gw, 1)} %`,
      '–',
      '–',
    ]),
  ],
)
const noisy = rows
  .filter((r): r is WrkRow => r.kind === 'load' || r.kind === 'c1' || r.kind === 'stream')
  .map((r) => ({ r, other: otherCpuPct(r) }))
  .filter(({ other }) => other > NOISE_PCT)
if (noisy.length) {
  const list = noisy.map(({ r, other }) => `${r.target} ${r.kind} ${fmt(other, 0)} %`).join(', ')
  out.push(`> **Noisy run:** other processes used more than ${NOISE_PCT} % of the machine during: ${list}. Those numbers are low; run again on a quiet machine.`)
} else {
  out.push(`Other processes used at most ${NOISE_PCT} % of the machine during every measured run.`)
}
out.push('')
console.log(out.join('\n'))
