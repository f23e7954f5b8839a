/**
 * @module Reference row for bench/mcp.ts: the least a Bun process can do between an MCP client and a Streamable
 * HTTP server. Bun.serve takes each request and forwards it with fetch to the one upstream URL, headers and body
 * as they are (the session id included), and hands the answer back untouched (event streams included): no key, no
 * session of its own, no audit. What the gateway adds beyond this row is its own work; what this row adds beyond
 * the direct call is the second hop itself on this machine.
 *
 * Usage: bun bench/mcp-bare-proxy.ts <port> <upstream MCP URL, e.g. http://127.0.0.1:9000/mcp>
 */
import { runUntilStopped } from './serve.ts'

const port = Number(process.argv[2] ?? 0)
const upstream = process.argv[3] ?? ''
if (!upstream) {
  console.error('usage: bun bench/mcp-bare-proxy.ts <port> <upstream MCP URL>')
  process.exit(2)
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  idleTimeout: 0,
  async fetch(req) {
    const headers = new Headers(req.headers)
    headers.delete('host')
    const res = await fetch(upstream, { method: req.method, headers, body: req.method === 'POST' ? await req.text() : undefined })
    return new Response(res.body, { status: res.status, headers: res.headers })
  },
})

runUntilStopped(server)
