/**
 * @module Reference row for the benchmark: the least a Bun proxy can do. Bun.serve checks the bearer key, then
 * forwards the request with fetch and hands the upstream body back untouched (streams included). What the
 * gateway costs beyond this row is the gateway's own per-request work; what this row costs beyond nginx is
 * Bun's HTTP server + fetch client.
 *
 * Usage: bun bench/bare-proxy.ts <port> <upstream base, e.g. http://127.0.0.1:9000> [bearer key]
 */
import { runUntilStopped } from './serve.ts'

const port = Number(process.argv[2] ?? 0)
const upstream = process.argv[3] ?? ''
const key = process.argv[4] ?? process.env.BENCH_KEY ?? ''
if (!upstream) {
  console.error('usage: bun bench/bare-proxy.ts <port> <upstream base> [bearer key]')
  process.exit(2)
}
const expected = key ? `Bearer ${key}` : ''
const upstreamAuth = `Bearer ${process.env.UPSTREAM_KEY ?? 'sk-bench'}`

const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  idleTimeout: 0,
  async fetch(req) {
    if (expected && req.headers.get('authorization') !== expected) {
      return Response.json({ error: { message: 'invalid key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }, { status: 401 })
    }
    const url = new URL(req.url)
    const res = await fetch(upstream + url.pathname + url.search, {
      method: req.method,
      headers: { 'content-type': 'application/json', authorization: upstreamAuth },
      body: req.method === 'POST' ? await req.text() : undefined,
    })
    return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
  },
})

runUntilStopped(server)
