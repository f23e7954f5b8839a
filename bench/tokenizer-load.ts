/**
 * Tokenizer loading, two designs side by side in fresh processes (interleaved, RUNS each): how long the calling
 * thread stalls (longest gap of a 1 ms timer) during the first count, how long the first count takes, and the RSS
 * after it. `thread`: the gateway's design (tables on the tokenizer thread, src/tokens/count-thread.ts);
 * `sync`: the tables loaded lazily on the calling thread (what a prewarm after /ready or a lazy load would do);
 * `idle`: no count, the timer alone for 1.5 s (what the machine's load costs by itself).
 * Usage: bun bench/tokenizer-load.ts [RUNS]   (prints a Markdown table; medians in ms and MiB)
 */
import { longestStall } from '../test/helpers/event-loop-stall.ts'

const runs = Number(process.argv[2] ?? 5)
const mode = process.argv[3]

if (mode) {
  const { countTextTokens } = await import('../src/tokens/count.ts')
  const { countTextsTokensNow } = await import('../src/tokens/encode.ts')
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20)
  const rssBefore = process.memoryUsage().rss
  let tokens = 0
  let firstCount = 0
  const stall = await longestStall(async () => {
    await Bun.sleep(20)
    const started = performance.now()
    // `idle`: no count, the same 1 ms timer for 1.5 s: the stall the machine's load alone causes.
    tokens = mode === 'thread' ? await countTextTokens(text) : mode === 'sync' ? countTextsTokensNow([text]) : await Bun.sleep(1500).then(() => 0)
    firstCount = performance.now() - started
    await Bun.sleep(15)
  })
  console.log(JSON.stringify({ tokens, firstCount, stall, rssBefore, rssAfter: process.memoryUsage().rss }))
  process.exit(0)
}

type Sample = { tokens: number; firstCount: number; stall: number; rssBefore: number; rssAfter: number }
const results: Record<string, Sample[]> = { thread: [], sync: [], idle: [] }
for (let i = 0; i < runs; i++) {
  for (const m of Object.keys(results)) {
    const child = Bun.spawnSync(['bun', import.meta.path, '1', m], { stdout: 'pipe', stderr: 'inherit' })
    results[m]!.push(JSON.parse(child.stdout.toString()) as Sample)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mib = (b: number) => (b / 1024 / 1024).toFixed(0)
console.log(`| design (${runs} runs, medians) | caller's longest stall, ms | first count, ms | RSS before → after, MiB | tokens |\n|---|---:|---:|---:|---:|`)
for (const [m, xs] of Object.entries(results)) {
  console.log(
    `| ${m} | ${median(xs.map((x) => x.stall)).toFixed(0)} (max ${Math.max(...xs.map((x) => x.stall)).toFixed(0)}) | ${median(xs.map((x) => x.firstCount)).toFixed(0)} | ${mib(median(xs.map((x) => x.rssBefore)))} → ${mib(median(xs.map((x) => x.rssAfter)))} | ${xs[0]!.tokens} |`,
  )
}
