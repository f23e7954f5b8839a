import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { DrizzleQueryError } from 'drizzle-orm'
import { isConnectionError } from './client.ts'

/** The error of `SELECT 1` against `port` on loopback, where no PostgreSQL answers: the client's own. */
async function selectOneError(port: number): Promise<unknown> {
  const sql = new SQL({ url: `postgres://gateway@127.0.0.1:${port}/gateway`, max: 1, connectionTimeout: 1, tls: false })
  try {
    return await sql`SELECT 1`.then(
      () => undefined,
      (e: unknown) => e,
    )
  } finally {
    await sql.close()
  }
}

/** An error shaped as Bun's client reports one the server sent (its SQLSTATE in `errno`); the servers' own are in test/integration/postgres-connection-errors.test.ts. */
const serverError = (sqlstate: string) => Object.assign(new Error(`server said ${sqlstate}`), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: sqlstate })

/** A real TypeError, as a bug in the gateway's code throws it. */
function typeError(): unknown {
  try {
    return (JSON.parse('null') as { length: number }).length
  } catch (e) {
    return e
  }
}

describe('isConnectionError', () => {
  test('a refused connection (nothing listens on port 1)', async () => {
    const error = await selectOneError(1)
    expect(error).toMatchObject({ code: 'ERR_POSTGRES_CONNECTION_REFUSED' })
    expect(isConnectionError(error)).toBe(true)
  })

  test('a connection closed before the handshake (a listener that hangs up)', async () => {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: (socket) => void socket.terminate(), data() {} } })
    const error = await selectOneError(listener.port)
    listener.stop(true)
    expect(error).toMatchObject({ code: 'ERR_POSTGRES_CONNECTION_FAILED' })
    expect(isConnectionError(error)).toBe(true)
  })

  test('a connection that times out (a listener that never answers)', async () => {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const error = await selectOneError(listener.port)
    listener.stop(true)
    expect(error).toMatchObject({ code: 'ERR_POSTGRES_CONNECTION_TIMEOUT' })
    expect(isConnectionError(error)).toBe(true)
  })

  test('the client’s connection error wrapped by drizzle is still one', async () => {
    const refused = await selectOneError(1)
    expect(isConnectionError(new DrizzleQueryError('select 1', [], refused as Error))).toBe(true)
  })

  test('server errors about the connection are; about the statement, not', () => {
    for (const sqlstate of ['08006', '08003', '57P01', '57P02', '57P03', '57P05', '53300']) expect(isConnectionError(serverError(sqlstate))).toBe(true)
    for (const sqlstate of ['23505', '42P01', '22012', '53100', '57014', '40001']) expect(isConnectionError(serverError(sqlstate))).toBe(false)
    expect(isConnectionError(new DrizzleQueryError('insert', [], serverError('23505')))).toBe(false)
  })

  test("a fault of the gateway's own code, or anything not known to be about the connection, is not", () => {
    expect(typeError()).toBeInstanceOf(TypeError)
    expect(isConnectionError(typeError())).toBe(false)
    expect(isConnectionError(new DrizzleQueryError('insert', [], typeError() as Error))).toBe(false)
    expect(isConnectionError(new RangeError('Invalid time value'))).toBe(false)
    expect(isConnectionError(new Error('something else'))).toBe(false)
    expect(isConnectionError(Object.assign(new TypeError('Unknown object is not a valid PostgreSQL type'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe(false)
    expect(isConnectionError('a string')).toBe(false)
    expect(isConnectionError(undefined)).toBe(false)
  })
})
