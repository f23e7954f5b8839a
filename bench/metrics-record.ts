/**
 * What recording one request's metrics costs, in CPU ns per request, measured in-process and therefore free of the
 * machine's load swings that dominate bench/observability.sh: the three calls the pipeline makes per request
 * (`begin`, `headersReady`, `complete`) on a real GatewayMetrics for a plain non-stream chat completion with one
 * upstream attempt and upstream usage, minus the same loop without them (the context and headers a request makes
 * anyway). Each source tree given is measured in interleaved rounds (e.g. this tree against `main`, exported with
 * `git worktree` or bench/lib.sh's export_bench_ref); the figure is the median over the rounds.
 * Usage: bun bench/metrics-record.ts [SRC_ROOT ...]   (default: this tree)
 */
import { resolve } from 'node:path'

const roots = process.argv.length > 2 ? process.argv.slice(2).map((r) => resolve(r)) : [resolve(import.meta.dir, '..')]
const ROUNDS = Number(process.env.ROUNDS ?? 9)
const REQUESTS = Number(process.env.REQUESTS ?? 200_000)

interface Tree {
  root: string
  /** One request through the recording calls, or through nothing but the context and headers when `telemetry` is off. */
  request(recording: boolean): void
}

async function load(root: string): Promise<Tree> {
  const { GatewayMetrics } = await import(`${root}/src/observability/metrics.ts`)
  const { RequestTelemetry } = await import(`${root}/src/observability/request-telemetry.ts`)
  const { RequestContext } = await import(`${root}/src/pipeline/context.ts`)
  const { silentLogger } = await import(`${root}/src/log/logger.ts`)
  const zero = () => new Proxy({}, { get: () => 0 })
  const metrics = new GatewayMetrics(zero, zero)
  const telemetry = new RequestTelemetry({ metrics, overheadHeader: true, isListedModel: () => true })
  const signal = new AbortController().signal
  const usage = { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 }
  return {
    root,
    request(recording) {
      const ctx = new RequestContext({
        endpoint: 'chat.completions',
        method: 'POST',
        path: '/v1/chat/completions',
        headers: new Headers(),
        clientIp: '127.0.0.1',
        log: silentLogger,
        clientSignal: signal,
      })
      ctx.stream = false
      ctx.target = { providerName: 'openai', model: 'gpt-4o-mini', selector: 'openai/gpt-4o-mini' }
      const headers = new Headers({ 'content-type': 'application/json' })
      if (recording) telemetry.begin(ctx)
      ctx.attempts.push({
        seq: 0,
        kind: 'primary',
        model: 'gpt-4o-mini',
        provider_name: 'openai',
        provider_type: 'openai',
        started_at: '',
        duration_ns: 900_000,
        success: true,
        status_code: 200,
      })
      if (recording) telemetry.headersReady(ctx, headers, false)
      const outcome = { status: 200, clientAborted: false, usage, bytesOut: 300, responseHeaders: headers, durationNs: ctx.elapsedNs() + 1_000_000, ttfbMs: 1.2 }
      if (recording) telemetry.complete(ctx, outcome, false)
    },
  }
}

function cpuNs(run: () => void): number {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) * 1000
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const trees = await Promise.all(roots.map(load))
for (const tree of trees) for (let i = 0; i < 20_000; i++) tree.request(i % 2 === 0) // JIT warm-up
const costs = new Map<string, number[]>(trees.map((t) => [t.root, []]))
const bases = new Map<string, number[]>(trees.map((t) => [t.root, []]))
for (let round = 0; round < ROUNDS; round++) {
  // Alternating order, and the loop without recording measured right beside the one with it.
  for (const tree of round % 2 ? [...trees].reverse() : trees) {
    const base = cpuNs(() => {
      for (let i = 0; i < REQUESTS; i++) tree.request(false)
    })
    const withRecording = cpuNs(() => {
      for (let i = 0; i < REQUESTS; i++) tree.request(true)
    })
    bases.get(tree.root)!.push(base / REQUESTS)
    costs.get(tree.root)!.push((withRecording - base) / REQUESTS)
  }
}
console.log(`| source | recording, CPU ns/request (median of ${ROUNDS} rounds) | per round | context + headers alone, ns |`)
console.log('| --- | ---: | --- | ---: |')
for (const tree of trees) {
  const c = costs.get(tree.root)!
  console.log(`| ${tree.root} | ${median(c).toFixed(0)} | ${c.map((v) => v.toFixed(0)).join(' ')} | ${median(bases.get(tree.root)!).toFixed(0)} |`)
}
