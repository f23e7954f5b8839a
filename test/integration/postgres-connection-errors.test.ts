/**
 * What "PostgreSQL is down" means, against a real server: the errors a lost connection really produces (a
 * backend killed mid-query, a connection terminated by an administrator, the server in recovery, too many
 * connections) are connection errors; an error about the statement, here a unique violation that drizzle wraps,
 * is not, so a store call that hits one neither marks the database down nor turns into a 503.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { loadConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { StoreUnavailableError } from '../../src/stores/errors.ts'
import { openStores } from '../../src/stores/open.ts'
import { isConnectionError } from '../../src/stores/postgres/client.ts'
import { postgresAvailable, startPostgres, type RunningPostgres } from '../helpers/postgres-server.ts'
import { keyRecord } from '../helpers/store-records.ts'

let pg: RunningPostgres

beforeAll(async () => {
  if (!postgresAvailable()) return
  pg = await startPostgres({ maxConnections: 8 }) // a cluster of its own: a backend is killed and connections run out
}, 60_000)
afterAll(async () => {
  await pg?.destroy()
})

/** Runs `query` and resolves to its error (undefined when it succeeded). */
const failure = (query: Promise<unknown>) =>
  query.then(
    () => undefined,
    (e: unknown) => e,
  )

const backendPid = async (sql: SQL) => (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid

/** The database is up again: `SELECT 1` succeeds on a fresh connection (after a crash the server recovers first). */
async function serverAnswers(url: string): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const sql = new SQL({ url, max: 1, connectionTimeout: 2 })
    const error = await failure(sql`SELECT 1`)
    await sql.close()
    if (!error) return
    if (Date.now() > deadline) throw error
    await Bun.sleep(50)
  }
}

describe.skipIf(!postgresAvailable())('connection errors from a real server', () => {
  test('a backend killed mid-query: the connection closes, and the server in recovery refuses the next one', async () => {
    const sql = new SQL({ url: pg.url, max: 1 })
    const pid = await backendPid(sql)
    const running = failure(sql`SELECT pg_sleep(10)`)
    await Bun.sleep(200)
    process.kill(pid, 'SIGKILL')
    const closed = await running
    expect(closed).toMatchObject({ code: 'ERR_POSTGRES_CONNECTION_CLOSED' })
    expect(isConnectionError(closed)).toBe(true)
    // The postmaster restarts every backend after one crashed; until it has recovered, connections are refused
    // by the server (57P03) or by the socket.
    const next = await failure(sql`SELECT 1`)
    if (next) expect(isConnectionError(next)).toBe(true)
    await sql.close()
    await serverAnswers(pg.url)
  }, 30_000)

  test('a connection an administrator terminates mid-query (57P01)', async () => {
    const sql = new SQL({ url: pg.url, max: 1 })
    const pid = await backendPid(sql)
    const running = failure(sql`SELECT pg_sleep(10)`)
    await Bun.sleep(200)
    const admin = new SQL({ url: pg.url, max: 1 })
    await admin`SELECT pg_terminate_backend(${pid})`
    await admin.close()
    const terminated = await running
    expect(terminated).toMatchObject({ code: 'ERR_POSTGRES_SERVER_ERROR', errno: '57P01' })
    expect(isConnectionError(terminated)).toBe(true)
    await sql.close()
  }, 30_000)

  test('too many connections (53300)', async () => {
    const open: SQL[] = []
    let refused: unknown
    // max_connections is 8, of which 3 are reserved for superusers: a bounded number of tries finds the limit.
    for (let i = 0; i < 12 && !refused; i++) {
      const sql = new SQL({ url: pg.url, max: 1 })
      open.push(sql)
      refused = await failure(sql`SELECT 1`)
    }
    for (const sql of open) await sql.close()
    expect(refused).toMatchObject({ code: 'ERR_POSTGRES_SERVER_ERROR', errno: '53300' })
    expect(isConnectionError(refused)).toBe(true)
  }, 30_000)

  test('errors about the statement and faults of the caller are not connection errors', async () => {
    const sql = new SQL({ url: pg.url, max: 1 })
    const undefinedTable = await failure(sql`SELECT * FROM no_such_table`)
    const divisionByZero = await failure(sql`SELECT 1 / 0`)
    const unencodable = await failure(sql`SELECT ${Symbol('not a value') as unknown as string}`)
    await sql.close()
    expect(undefinedTable).toMatchObject({ errno: '42P01' })
    expect(divisionByZero).toMatchObject({ errno: '22012' })
    expect(unencodable).toBeInstanceOf(TypeError)
    for (const error of [undefinedTable, divisionByZero, unencodable]) expect(isConnectionError(error)).toBe(false)
  })

  test('a store call that breaks a constraint gets its own error and leaves the database reachable', async () => {
    const config = loadConfig({ env: { DATABASE_URL: await pg.freshDatabase(), DATABASE_POOL_SIZE: '2' }, cwd: '/nonexistent-dir-for-tests' })
    const stores = await openStores(config, silentLogger)
    try {
      await stores.keys.insert(keyRecord(1))
      // The same key hash again: a unique violation (23505), wrapped by drizzle in a DrizzleQueryError.
      const duplicate = await failure(stores.keys.insert(keyRecord(2, { keyHash: 'hash-1' })))
      expect(duplicate).toBeDefined()
      expect(duplicate).not.toBeInstanceOf(StoreUnavailableError)
      expect((duplicate as Error).cause).toMatchObject({ errno: '23505' })
      expect(stores.health?.()).toMatchObject({ backend: 'postgres', reachable: true })
    } finally {
      await stores.close()
    }
  }, 30_000)
})
