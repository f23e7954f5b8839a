/**
 * @module Runs the real entry point (`bun src/main.ts`, or the compiled binary) as a child process on a free port,
 * for tests that need the gateway on an event loop of its own (latency under hostile load), a real process to
 * signal, or several replicas.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '../..')

export interface GatewayProcess {
  proc: ReturnType<typeof Bun.spawn>
  url: string
  dbPath: string
  /** Everything the process wrote so far, stdout and stderr (its log at LOG_LEVEL, JSON lines). */
  output(): string
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number>
}

export function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

/** `options.command` replaces `bun src/main.ts` (e.g. the compiled binary), run in `options.cwd`. */
export async function spawnGateway(
  env: Record<string, string>,
  dbPath = join(mkdtempSync(join(tmpdir(), 'gw-proc-')), 'gateway.db'),
  options: { command?: string[]; cwd?: string } = {},
): Promise<GatewayProcess> {
  const port = freePort()
  const proc = Bun.spawn(options.command ?? ['bun', 'src/main.ts'], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), GATEWAY_DB_PATH: dbPath, LOG_LEVEL: 'warn', GATEWAY_CONFIG: '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
    })()
  }
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  for (;;) {
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`gateway did not start: ${output}`)
    }
    await Bun.sleep(50)
  }
  return {
    proc,
    url,
    dbPath,
    output: () => output,
    async stop() {
      proc.kill('SIGTERM')
      return proc.exited
    },
  }
}

/** Resident memory of a process (Linux: VmRSS of /proc/<pid>/status), in MiB. */
export function rssMb(pid: number): number {
  return statusMb(pid, 'VmRSS')
}

/**
 * The process's own resident memory (RssAnon): its heaps and stacks, without the executable's pages, which every
 * process started from one binary shares. Less noisy than the RSS.
 */
export function anonymousMb(pid: number): number {
  return statusMb(pid, 'RssAnon')
}

function statusMb(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!
  return Number(line.replace(/\D+/g, '')) / 1024
}

/**
 * The highest resident memory of `pid` (MiB) while `work` runs, sampled every `everyMs`. Past `killAboveMb` the
 * process is killed, so a test of a process that balloons fails at once instead of exhausting the machine.
 */
export async function peakRssDuring(pid: number, work: Promise<unknown>, { everyMs = 10, killAboveMb = Infinity } = {}): Promise<number> {
  let done = false
  void work.then(
    () => (done = true),
    () => (done = true),
  )
  let peak = rssMb(pid)
  while (!done) {
    await Bun.sleep(everyMs)
    try {
      peak = Math.max(peak, rssMb(pid))
    } catch {
      break // the process is gone
    }
    if (peak > killAboveMb) {
      process.kill(pid, 'SIGKILL')
      break
    }
  }
  return peak
}
