/**
 * @module Keeps the machine busy for a bounded time, to check that timing-sensitive tests hold under load: a mock
 * upstream (bench/mock-upstream.ts) on loopback, and `--connections` Bun clients posting chat completions to it
 * back to back. Stops after `--seconds` (or on SIGTERM/SIGINT) and prints the requests sent and the load average.
 *
 * Usage: bun bench/busy.ts [--seconds 600] [--connections 32]
 * e.g. `bun bench/busy.ts --seconds 900 & for i in $(seq 20); do bun test test/e2e/workers.test.ts || break; done`
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '600' }, connections: { type: 'string', default: '32' } } })
const seconds = Math.min(Number(values.seconds), 3600)
const connections = Math.min(Number(values.connections), 256)

const mock = Bun.spawn(['bun', `${import.meta.dir}/mock-upstream.ts`, '0'], { stdout: 'pipe', stderr: 'inherit' })
const reader = mock.stdout.getReader()
let announced = ''
while (!/listening \d+/.test(announced)) {
  const { value, done } = await reader.read()
  if (done) throw new Error('the mock upstream did not start')
  announced += new TextDecoder().decode(value)
}
const url = `http://127.0.0.1:${/listening (\d+)/.exec(announced)![1]}/v1/chat/completions`
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'busy' }] })

const until = Date.now() + seconds * 1000
let stopped = false
let sent = 0
const stop = () => {
  stopped = true
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

async function client(): Promise<void> {
  while (!stopped && Date.now() < until) {
    try {
      await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer()
      sent++
    } catch {
      await Bun.sleep(10)
    }
  }
}
console.log(`busy: ${connections} clients against ${url} for up to ${seconds} s`)
await Promise.all(Array.from({ length: connections }, client))
mock.kill('SIGTERM')
await mock.exited
console.log(
  `busy: ${sent} requests, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
)
