// Where a gateway's idle memory goes: the RSS (anonymous and file-backed), the JavaScript heap and the number of
// modules after each start-up stage of src/main.ts, in one process, a full collection before each reading. The
// third-party packages the gateway loads at start are imported first, one at a time, so each row is what that
// package adds to those above it; the rows after them are the gateway's own code, its stores and its threads.
// Usage: GATEWAY_DB_PATH=/tmp/x.db GATEWAY_MASTER_KEY=... OPENAI_API_KEY=sk-x bun bench/memory-stages.ts
import { heapStats } from 'bun:jsc'
import { readFileSync } from 'node:fs'

const rows: string[] = []
let last = { rss: 0, anon: 0, file: 0 }
function kib(status: string, field: string): number {
  return Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0)
}
async function stage(name: string) {
  Bun.gc(true)
  await Bun.sleep(200)
  const status = readFileSync('/proc/self/status', 'utf8')
  const now = { rss: kib(status, 'VmRSS'), anon: kib(status, 'RssAnon'), file: kib(status, 'RssFile') }
  const heap = heapStats()
  const mib = (k: number) => (k / 1024).toFixed(1)
  rows.push(
    `| ${name} | ${mib(now.rss)} | +${mib(now.rss - last.rss)} | ${mib(now.anon)} | ${mib(now.file)} | ${(heap.heapSize / 2 ** 20).toFixed(1)} | ${heap.objectCount} | ${Object.keys(require.cache).length} |`,
  )
  last = now
}

await stage('bun, this script')
for (const name of ['zod', 'pino', 'drizzle-orm', 'drizzle-orm/sqlite-core', 'jose', 'prom-client/lib/registry.js', 'elysia', '@elysiajs/openapi']) {
  await import(name)
  await stage(`package ${name}`)
}
const { loadConfig } = await import('../src/config/load.ts')
const { createLogger, stdoutDestination } = await import('../src/log/logger.ts')
await stage('config and logger loaded')
const config = loadConfig()
const log = createLogger('warn', stdoutDestination(config.logging.format))
const { setCountThreadUrl } = await import('../src/tokens/count-thread.ts')
setCountThreadUrl(new URL('../src/tokens/count-thread-worker.ts', import.meta.url).href)
const { Gateway } = await import('../src/app.ts')
await stage('src/app.ts loaded (plugins, pipeline, stores)')
const { createHttpApp } = await import('../src/http/server.ts')
await stage('src/http/server.ts loaded (Elysia, routes)')
const gateway = await Gateway.open({ config, log, writeThreadUrl: new URL('../src/stores/write-thread-worker.ts', import.meta.url).href })
await stage('Gateway.open (stores migrated, write thread)')
await gateway.init()
await stage('gateway.init (workflows, limits, prices)')
const app = createHttpApp(gateway)
await stage('createHttpApp (routes built)')
app.listen({ hostname: '127.0.0.1', port: 0 })
await stage('listening')
await gateway.start()
await stage('gateway.start (background work)')
await fetch(`http://127.0.0.1:${app.server?.port}/health`)
await stage('after a /health')
console.log('| stage | RSS MiB | delta | anon | file | JS heap MB | objects | modules |\n|---|---:|---:|---:|---:|---:|---:|---:|')
console.log(rows.join('\n'))
await app.server?.stop(true)
await gateway.shutdown()
process.exit(0)
