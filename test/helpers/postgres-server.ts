/**
 * @module Starts a throwaway PostgreSQL cluster from Debian's packages (`initdb` in a temporary folder, a free
 * loopback port, trust authentication) for integration tests and benchmarks, and hands out fresh databases in it.
 *
 * initdb and postgres refuse to run as root, so as root (CI) both run as the `postgres` system user through
 * `setpriv`. The server is started behind a small shell guard that stops it when the stdin pipe from this process
 * closes, so a crashed or killed test run leaves no server behind. Memory is kept small (shared_buffers 16 MB):
 * the machine is shared.
 */
import { SQL } from 'bun'
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RunningPostgres {
  /** Superuser URL of the cluster's `postgres` database. */
  url: string
  port: number
  /** Creates an empty database and returns its URL. */
  freshDatabase(): Promise<string>
  /** Stops the server (fast shutdown); the data folder stays, so `start()` brings the same cluster back. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stops the server and deletes the cluster. */
  destroy(): Promise<void>
}

/** The folder with initdb and postgres: a PostgreSQL 15+ from Debian's `postgresql` package, else PATH. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => Number(v) >= 15 && existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(root, versions[0], 'bin')
  }
  const initdb = Bun.which('initdb')
  return initdb ? initdb.slice(0, initdb.lastIndexOf('/')) : undefined
}

export function postgresAvailable(): boolean {
  return postgresBinDir() !== undefined
}

const isRoot = () => process.getuid?.() === 0

/** The command prefix that runs a program as the `postgres` user when we are root. */
function asServerUser(): string[] {
  return isRoot() ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'] : []
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

export interface PostgresOptions {
  sharedBuffers?: string
  maxConnections?: number
  /** PEM files of the server's certificate and key: the server then accepts TLS (`ssl=on`), and plain connections too. */
  tls?: { certFile: string; keyFile: string }
}

export async function startPostgres(options: PostgresOptions = {}): Promise<RunningPostgres> {
  const bin = postgresBinDir()
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql; scripts/system-deps.sh does it)')
  const root = mkdtempSync(join(tmpdir(), 'gw-pg-'))
  const data = join(root, 'data')
  if (isRoot()) {
    chownSync(root, Number(await Bun.$`id -u postgres`.text()), Number(await Bun.$`id -g postgres`.text()))
    chmodSync(root, 0o700)
  }
  const init = Bun.spawnSync([...asServerUser(), join(bin, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`)
  const port = await freePort()
  const tlsSettings: string[] = []
  if (options.tls) {
    // The server reads them as its own user and refuses a key others may read.
    for (const [name, from] of [
      ['server.crt', options.tls.certFile],
      ['server.key', options.tls.keyFile],
    ] as const) {
      const to = join(root, name)
      copyFileSync(from, to)
      chmodSync(to, 0o600)
      if (isRoot()) chownSync(to, Number(await Bun.$`id -u postgres`.text()), Number(await Bun.$`id -g postgres`.text()))
    }
    tlsSettings.push('ssl=on', `ssl_cert_file=${join(root, 'server.crt')}`, `ssl_key_file=${join(root, 'server.key')}`)
  }
  const settings = [
    ...tlsSettings,
    `port=${port}`,
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${root}`,
    `shared_buffers=${options.sharedBuffers ?? '16MB'}`,
    `max_connections=${options.maxConnections ?? 100}`,
    // A throwaway cluster: durability is not the point, speed and a small footprint are.
    'fsync=off',
    'synchronous_commit=off',
    'full_page_writes=off',
    'max_wal_size=256MB',
    'logging_collector=off',
  ]
  const argv = [...asServerUser(), join(bin, 'postgres'), '-D', data, ...settings.flatMap((s) => ['-c', s])]
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let guard: ReturnType<typeof Bun.spawn> | undefined

  async function start(): Promise<void> {
    // The guard shell stops the server (SIGINT: fast shutdown) when our end of its stdin closes, and then removes the
    // cluster's folder unless stop() marked it to be started again: a test process that exits (the shared cluster
    // is never destroyed explicitly) leaves no 350 MB folder behind.
    const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
    rmSync(join(root, 'restarting'), { force: true })
    guard = Bun.spawn(['sh', '-c', `${quoted} >'${root}/server.log' 2>&1 & pid=$!; cat >/dev/null; kill -INT $pid; wait $pid; [ -e '${root}/restarting' ] || rm -rf '${root}'`], {
      stdin: 'pipe',
      stdout: 'ignore',
      stderr: 'ignore',
    })
    guard.unref()
    const deadline = Date.now() + 20_000
    for (;;) {
      try {
        const sql = new SQL(url, { max: 1, connectionTimeout: 2 })
        await sql`SELECT 1`
        await sql.close()
        return
      } catch (err) {
        if (Date.now() > deadline || guard.exitCode !== null)
          throw new Error(
            `PostgreSQL did not start: ${(err as Error).message}\n${await Bun.file(join(root, 'server.log'))
              .text()
              .catch(() => '')}`,
          )
        await Bun.sleep(50)
      }
    }
  }

  async function stop(): Promise<void> {
    if (!guard) return
    const g = guard
    guard = undefined
    await Bun.write(join(root, 'restarting'), '')
    ;(g.stdin as import('bun').FileSink).end()
    await g.exited
  }

  await start()
  let databases = 0
  return {
    url,
    port,
    start,
    stop,
    async freshDatabase() {
      const name = `t${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`
      const sql = new SQL(url, { max: 1 })
      await sql.unsafe(`CREATE DATABASE ${name}`)
      await sql.close()
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    async destroy() {
      await stop()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

let shared: Promise<RunningPostgres> | undefined

/**
 * One cluster for the whole test process (bun test runs every file in one process), created on first use and
 * stopped when the process exits (the guard notices the closed pipe).
 */
export function sharedPostgres(): Promise<RunningPostgres> {
  shared ??= startPostgres()
  return shared
}
