/**
 * @module Time to first byte of streamed chat completions. A few lanes each send requests one after another
 * (`"stream": true`), time from just before fetch() to the first body chunk, then read the stream to its end
 * (a proxy's pooled upstream connection is reused, as in real traffic) and check it closed with
 * `data: [DONE]`. Lanes keep the run short while the paced streams (~200 ms each) are read: with 4 lanes the
 * background load is a handful of streams, far below anything that could queue.
 *
 * Usage: bun bench/ttfb.ts <url> [requests=200] [lanes=4]   (TTFB_WARMUP=20 uncounted requests first)
 * Same environment as bench/wrk/chat.lua: BENCH_MODEL, BENCH_AUTH, BENCH_HEADERS.
 * Prints one line: BENCH_JSON {"requests","ok","p50_ms","p90_ms","p99_ms","mean_ms","min_ms"}
 */

const url = process.argv[2] ?? ''
const total = Number(process.argv[3] ?? 200)
const lanes = Math.max(1, Number(process.argv[4] ?? 4))
const warmup = Number(process.env.TTFB_WARMUP ?? 20)
if (!url) {
  console.error('usage: bun bench/ttfb.ts <url> [requests] [lanes]')
  process.exit(2)
}

const headers: Record<string, string> = { 'content-type': 'application/json' }
if (process.env.BENCH_AUTH) headers.authorization = `Bearer ${process.env.BENCH_AUTH}`
for (const line of (process.env.BENCH_HEADERS ?? '').split('\n')) {
  const colon = line.indexOf(':')
  if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
}
const body = JSON.stringify({
  model: process.env.BENCH_MODEL ?? 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a concise assistant.' },
    { role: 'user', content: 'Say hello in one short sentence.' },
  ],
  max_tokens: 32,
  temperature: 0,
  stream: true,
})

const decoder = new TextDecoder()
const samples: number[] = []
let ok = 0
let failures = 0
let firstFailure = ''

async function one(): Promise<void> {
  const t0 = performance.now()
  const res = await fetch(url, { method: 'POST', headers, body })
  const reader = res.body!.getReader()
  let first: number | undefined
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (first === undefined && value.byteLength > 0) first = performance.now() - t0
    text += decoder.decode(value, { stream: true })
  }
  if (res.status === 200 && first !== undefined && text.trimEnd().endsWith('data: [DONE]')) {
    ok++
    samples.push(first)
  } else {
    failures++
    firstFailure ||= `HTTP ${res.status}: ${text.slice(0, 300)}`
  }
}

let issued = 0
async function lane(count: number): Promise<void> {
  while (issued < count) {
    issued++
    try {
      await one()
    } catch (error) {
      failures++
      firstFailure ||= String(error)
    }
  }
}

// Warm-up (not counted): connections opened, code paths compiled on both sides.
await Promise.all(Array.from({ length: lanes }, () => lane(warmup)))
samples.length = 0
ok = 0
failures = 0
firstFailure = ''
issued = 0
await Promise.all(Array.from({ length: lanes }, () => lane(total)))

samples.sort((a, b) => a - b)
const pct = (p: number) => (samples.length ? samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]! : NaN)
const round = (n: number) => Math.round(n * 1000) / 1000
const mean = samples.reduce((a, b) => a + b, 0) / (samples.length || 1)
console.log(
  `BENCH_JSON ${JSON.stringify({ requests: total, ok, failures, p50_ms: round(pct(50)), p90_ms: round(pct(90)), p99_ms: round(pct(99)), mean_ms: round(mean), min_ms: round(samples[0] ?? NaN) })}`,
)
if (failures > 0) console.error(`ttfb: ${failures} failed; first: ${firstFailure}`)

export {}
