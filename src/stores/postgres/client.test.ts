import { describe, expect, test } from 'bun:test'
import { connectPostgres, isConnectionError } from './client.ts'

/** An error shaped as Bun's client reports one the server sent (its SQLSTATE in `errno`). */
const serverError = (sqlstate: string) => Object.assign(new Error(`server said ${sqlstate}`), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: sqlstate })

describe('isConnectionError', () => {
  test('a server that cannot be reached is unreachable (a real refused connection)', async () => {
    // Port 1 on loopback: nothing listens there, so the client's own connection error is what comes back.
    const sql = connectPostgres({ url: 'postgres://gateway@127.0.0.1:1/gateway', poolSize: 1, tls: 'disable' })
    const error = await sql`SELECT 1`.then(
      () => undefined,
      (e: unknown) => e,
    )
    await sql.close()
    expect(error).toBeDefined()
    expect(isConnectionError(error)).toBe(true)
  })

  test('server errors about the connection are unreachable; about the statement, not', () => {
    expect(isConnectionError(serverError('08006'))).toBe(true) // connection failure
    expect(isConnectionError(serverError('57P01'))).toBe(true) // admin shutdown
    expect(isConnectionError(serverError('23505'))).toBe(false) // unique violation
    expect(isConnectionError(serverError('42P01'))).toBe(false) // undefined table
  })

  test("a fault of the gateway's own code is not a connection error", () => {
    expect(isConnectionError(new TypeError("Cannot read properties of undefined (reading 'length')"))).toBe(false)
    expect(isConnectionError(new RangeError('Invalid time value'))).toBe(false)
    expect(isConnectionError(new SyntaxError('JSON Parse error'))).toBe(false)
  })
})
