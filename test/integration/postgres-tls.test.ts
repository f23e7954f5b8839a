/**
 * DATABASE_TLS against a real PostgreSQL that serves a certificate this test makes with its own authority
 * (openssl): `require` and `verify-full` (with DATABASE_TLS_CA_FILE) start the gateway on encrypted connections
 * only; `verify-full` with the wrong host name, the wrong authority or none (the system store), `require` against
 * a server without TLS, and a missing CA file stop the start with a message that names the setting.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectPostgres, isConnectionError } from '../../src/stores/postgres/client.ts'
import { ROOT, spawnGateway } from '../helpers/gateway-process.ts'
import { postgresAvailable, type RunningPostgres, sharedPostgres, startPostgres } from '../helpers/postgres-server.ts'

const MASTER = 'master-key-for-postgres-tls-0123456789'
const certs = mkdtempSync(join(tmpdir(), 'gw-pg-tls-'))
let pg: RunningPostgres

/** A certificate authority, and a server certificate it signs for `localhost` only (not 127.0.0.1). */
function makeCertificates(): void {
  const openssl = (...args: string[]) => {
    const run = Bun.spawnSync(['openssl', ...args], { cwd: certs, stdout: 'pipe', stderr: 'pipe' })
    if (run.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${run.stderr.toString()}`)
  }
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  for (const ca of ['ca', 'other-ca']) openssl('req', '-x509', ...ecKey, '-keyout', `${ca}.key`, '-out', `${ca}.crt`, '-days', '2', '-subj', `/CN=gateway test ${ca}`)
  openssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost')
  writeFileSync(join(certs, 'server.ext'), 'subjectAltName=DNS:localhost\n')
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext')
}

beforeAll(async () => {
  if (!postgresAvailable()) return
  makeCertificates()
  pg = await startPostgres({ tls: { certFile: join(certs, 'server.crt'), keyFile: join(certs, 'server.key') } })
}, 60_000)
afterAll(async () => {
  await pg?.destroy()
})

/** A fresh database of the TLS server, its URL naming the server by `host`. */
const databaseAt = async (host: 'localhost' | '127.0.0.1') => (await pg.freshDatabase()).replace('@127.0.0.1:', `@${host}:`)

/** The gateway's connections to `databaseUrl`'s database, from the server's side: how many, and how many encrypted. */
async function connectionsTo(databaseUrl: string): Promise<{ total: number; encrypted: number }> {
  const sql = new SQL({ url: pg.url, max: 1 })
  try {
    const name = new URL(databaseUrl).pathname.slice(1)
    const [row] = await sql<{ total: number; encrypted: number }[]>`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE s.ssl)::int AS encrypted
      FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = ${name}`
    return row!
  } finally {
    await sql.close()
  }
}

/** Starts the real entry point that must refuse to start; resolves to its exit code and what it printed. */
async function refusedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const proc = Bun.spawn(['bun', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', GATEWAY_CONFIG: '', GATEWAY_MASTER_KEY: MASTER, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  clearTimeout(timer)
  return { code, output: `${stdout}${stderr}` }
}

describe.skipIf(!postgresAvailable())('DATABASE_TLS', () => {
  for (const [mode, host, extra] of [
    ['require', '127.0.0.1', {}],
    ['verify-full', 'localhost', { DATABASE_TLS_CA_FILE: join(certs, 'ca.crt') }],
  ] as const) {
    test(`${mode} (host ${host}): the gateway starts, and every connection it holds is encrypted`, async () => {
      const url = await databaseAt(host)
      const gw = await spawnGateway({ DATABASE_URL: url, DATABASE_TLS: mode, ...extra, GATEWAY_MASTER_KEY: MASTER })
      try {
        const ready = await fetch(`${gw.url}/ready`)
        expect(ready.status).toBe(200)
        const keys = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${MASTER}` } })
        expect(keys.status).toBe(200)
        const seen = await connectionsTo(url)
        expect(seen.total).toBeGreaterThan(0)
        expect(seen.encrypted).toBe(seen.total)
      } finally {
        await gw.stop()
      }
    }, 60_000)
  }

  test('verify-full with a host name the certificate does not list is refused at start-up', async () => {
    const { code, output } = await refusedStart({ DATABASE_URL: await databaseAt('127.0.0.1'), DATABASE_TLS: 'verify-full', DATABASE_TLS_CA_FILE: join(certs, 'ca.crt') })
    expect(code).toBe(1)
    expect(output).toContain("PostgreSQL's certificate does not name the host '127.0.0.1' (ERR_TLS_CERT_ALTNAME_INVALID")
    expect(output).toContain('DATABASE_URL must use a host name the certificate lists')
  }, 60_000)

  test('verify-full with another authority, or none (the system store), is refused at start-up', async () => {
    for (const env of [{ DATABASE_TLS_CA_FILE: join(certs, 'other-ca.crt') }, {}] as Record<string, string>[]) {
      const { code, output } = await refusedStart({ DATABASE_URL: await databaseAt('localhost'), DATABASE_TLS: 'verify-full', ...env })
      expect(code).toBe(1)
      expect(output).toContain("PostgreSQL's certificate at 'localhost' is not signed by a trusted authority")
      expect(output).toContain('set DATABASE_TLS_CA_FILE to the PEM bundle of the authority that signed it')
    }
  }, 60_000)

  test('a CA file that does not exist is refused at start-up', async () => {
    const { code, output } = await refusedStart({ DATABASE_URL: await databaseAt('localhost'), DATABASE_TLS: 'verify-full', DATABASE_TLS_CA_FILE: join(certs, 'missing.crt') })
    expect(code).toBe(1)
    expect(output).toContain(`DATABASE_TLS_CA_FILE (database.tls_ca_file): ${join(certs, 'missing.crt')} does not exist.`)
  }, 60_000)

  test('a TLS refusal met while running counts as the database unreachable (retried, never dead-lettered)', async () => {
    const sql = connectPostgres({ url: await databaseAt('127.0.0.1'), poolSize: 1, tls: 'verify-full', tlsCaFile: join(certs, 'ca.crt') })
    const refused = await sql`SELECT 1`.then(
      () => undefined,
      (e: unknown) => e,
    )
    await sql.close()
    expect(refused).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' })
    expect(isConnectionError(refused)).toBe(true)
  })

  test('require against a server without TLS is refused at start-up, never sent in the clear', async () => {
    const plain = await sharedPostgres()
    const { code, output } = await refusedStart({ DATABASE_URL: await plain.freshDatabase(), DATABASE_TLS: 'require' })
    expect(code).toBe(1)
    expect(output).toContain('does not accept TLS connections')
  }, 60_000)
})
