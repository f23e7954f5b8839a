/**
 * @module Benchmark OTLP/HTTP trace receiver: accepts what the gateway's exporter POSTs to /v1/traces and counts
 * spans without decoding them (a substring count), so it costs the shared machine as little as possible.
 * GET /stats answers `{ "requests": n, "spans": n, "bytes": n }`.
 * Usage: bun bench/otlp-sink.ts <port>
 */
import { runUntilStopped } from './serve.ts'
const port = Number(process.argv[2] ?? 0)
const stats = { requests: 0, spans: 0, bytes: 0 }
const SPAN_MARK = '"spanId"'

const server = Bun.serve({
  port,
  hostname: '127.0.0.1',
  async fetch(req) {
    const url = new URL(req.url)
    if (req.method === 'GET' && url.pathname === '/stats') return Response.json(stats)
    if (req.method !== 'POST' || url.pathname !== '/v1/traces') return new Response('not found', { status: 404 })
    const text = await req.text()
    stats.requests++
    stats.bytes += text.length
    for (let i = text.indexOf(SPAN_MARK); i !== -1; i = text.indexOf(SPAN_MARK, i + SPAN_MARK.length)) stats.spans++
    return Response.json({ partialSuccess: {} })
  },
})
runUntilStopped(server)
