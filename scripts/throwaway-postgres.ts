/**
 * Starts a throwaway PostgreSQL cluster (Debian's package, a temporary folder, a free loopback port, 16 MB shared
 * buffers, or PG_SHARED_BUFFERS: 128MB is PostgreSQL's own default), creates one empty database, prints its URL
 * on stdout and keeps running until stdin closes or the process is stopped; the cluster is deleted then. For
 * benchmarks and trying the PostgreSQL backend by hand:
 *
 *   bun scripts/throwaway-postgres.ts            # prints postgres://postgres@127.0.0.1:PORT/DB
 */
import { startPostgres } from '../test/helpers/postgres-server.ts'

const pg = await startPostgres({ sharedBuffers: process.env.PG_SHARED_BUFFERS })
console.log(await pg.freshDatabase())
let done = false
const finish = async () => {
  if (done) return
  done = true
  await pg.destroy()
  process.exit(0)
}
process.on('SIGTERM', finish)
process.on('SIGINT', finish)
for await (const _ of Bun.stdin.stream()) {
  // hold until stdin closes
}
await finish()
