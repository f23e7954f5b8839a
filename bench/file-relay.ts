/**
 * The plain copy bench/file-memory.ts measures the gateway against: a trivial Bun.serve process that writes a POST's
 * body to a file as it arrives and streams it back on GET, with nothing else (no parsing, hashing, database or
 * audit). Prints its URL on the first line of stdout.
 *
 *   bun bench/file-relay.ts <directory>
 */
import { join } from 'node:path'

const directory = process.argv[2] ?? '.'
const path = join(directory, 'relayed.bin')
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  idleTimeout: 0,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  async fetch(req) {
    if (req.method === 'POST' && req.body) {
      const sink = Bun.file(path).writer({ highWaterMark: 1024 * 1024 })
      let pending = 0
      for await (const chunk of req.body) {
        sink.write(chunk)
        pending += chunk.byteLength
        if (pending >= 1024 * 1024) {
          pending = 0
          await sink.flush()
        }
      }
      await sink.end()
      return Response.json({ bytes: Bun.file(path).size })
    }
    return new Response(Bun.file(path).stream(), { headers: { 'content-type': 'application/octet-stream' } })
  },
})
console.log(`http://127.0.0.1:${server.port}`)
