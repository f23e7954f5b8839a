/**
 * @module The primary process of `GATEWAY_WORKERS=N`: starts N workers that serve HTTP on the same port
 * (`reusePort`: the kernel spreads connections over them), restarts one that dies, and on SIGTERM/SIGINT lets every
 * worker drain (each finishes its in-flight requests and writes its queues) before it exits itself. It serves
 * no HTTP; it keeps what the workers must share (src/workers/link.ts): counters, the change feed relay, the lease
 * and, on the embedded SQLite database, the one write thread that stores every worker's audit entries and usage
 * records. On PostgreSQL the workers are replicas like any other and write themselves.
 */
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import type { GatewayConfig } from '../config/schema.ts'
import { announce, flushLog, type Logger } from '../log/logger.ts'
import { WorkerMetricsGathering } from '../observability/group-metrics.ts'
import { openPrimaryStores } from '../stores/primary-stores.ts'
import { spillDirFor } from '../stores/write-path/spill.ts'
import { WORKER_INDEX_ENV, type PrimaryMessage, type WorkerCall, type WorkerMessage } from './protocol.ts'

export interface PrimaryOptions {
  config: GatewayConfig
  log: Logger
  workers: number
  writeThreadUrl?: string
  /** How long workers get to drain after SIGTERM before they are killed. */
  drainDeadlineMs?: number
}

/**
 * JavaScriptCore sizes its heap growth by the machine's RAM, so on a large host each worker lets garbage pile up
 * for long. Told the machine has 512 MiB (the operator's own BUN_JSC_forceRAMSize wins), a process peaked 25–35 MiB
 * lower under 50 connections at the same CPU per request; at 128 MiB its CPU per request tripled (bench/memory.sh,
 * docs/workers.md).
 */
const WORKER_JSC_DEFAULTS = { BUN_JSC_forceRAMSize: String(512 * 1024 * 1024) }

/** A worker that ran this long before dying is restarted at once; quicker deaths back off up to 5 s. */
const HEALTHY_RUN_MS = 30_000

export async function runPrimary(options: PrimaryOptions): Promise<never> {
  const { config, log, workers } = options
  const { counters, writes: shared } = await openPrimaryStores(config, log, options.writeThreadUrl)
  const leases = new Map<string, number>()
  const metrics = new WorkerMetricsGathering()
  const slots: (Subprocess | undefined)[] = new Array(workers).fill(undefined)
  let stopping = false

  const broadcast = (message: PrimaryMessage) => {
    for (const child of slots) if (child && !child.killed) safeSend(child, message)
  }

  const answer = async (index: number, call: WorkerCall): Promise<unknown> => {
    switch (call.op) {
      case 'addWithin':
        return counters.addWithin(call.key, call.delta, call.limit, call.ttlMs)
      case 'add':
        return counters.add(call.key, call.delta, call.ttlMs)
      case 'get':
        return counters.get(call.key)
      case 'lease':
        if (leases.has(call.name)) return false
        leases.set(call.name, index)
        return true
      case 'audit':
        if (!shared) throw new Error('audit rows sent to a primary that does not own the database')
        return shared.writeEncodedAudit(call.packed)
      case 'usage':
        if (!shared) throw new Error('usage records sent to a primary that does not own the database')
        await shared.writeEncodedUsage(call.json)
        return call.count
      case 'metrics': {
        const running = slots.flatMap((child, i) => (child && !child.killed ? [i] : []))
        return metrics.gather(running, (i, id) => safeSend(slots[i]!, { t: 'collect-metrics', id }))
      }
    }
  }

  const onMessage = (index: number, child: Subprocess, message: WorkerMessage) => {
    if (message.t === 'publish') broadcast({ t: 'changed', topic: message.topic })
    else if (message.t === 'metrics') metrics.receive(index, message.id, message.metrics)
    else if (message.t === 'release') {
      if (leases.get(message.name) === index) leases.delete(message.name)
    } else if (message.t === 'call') {
      answer(index, message.call).then(
        (value) => safeSend(child, { t: 'reply', id: message.id, ok: true, value }),
        (err: unknown) => safeSend(child, { t: 'reply', id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
      )
    }
  }

  const start = (index: number, crashes: number) => {
    const startedAt = Date.now()
    const child = Bun.spawn([...workerCommand()], {
      env: { ...WORKER_JSC_DEFAULTS, ...process.env, [WORKER_INDEX_ENV]: String(index), GATEWAY_WORKERS: String(workers), ...spillEnv(config, index) },
      stdio: ['ignore', 'inherit', 'inherit'],
      serialization: 'advanced',
      ipc: (message: WorkerMessage, subprocess) => onMessage(index, subprocess, message),
    })
    slots[index] = child
    announce(log, { worker: index, pid: child.pid }, 'worker started')
    void child.exited.then((code) => {
      if (slots[index] === child) slots[index] = undefined
      for (const [name, holder] of leases) if (holder === index) leases.delete(name)
      if (stopping) return
      const ranLong = Date.now() - startedAt > HEALTHY_RUN_MS
      const next = ranLong ? 0 : crashes + 1
      const delay = next === 0 ? 0 : Math.min(5000, 100 * 2 ** (next - 1))
      log.warn({ worker: index, pid: child.pid, exit_code: code, signal: child.signalCode, restart_in_ms: delay }, 'worker exited; starting a replacement')
      flushLog(log)
      setTimeout(() => start(index, next), delay)
    })
  }

  for (let i = 0; i < workers; i++) start(i, 0)
  announce(log, { workers, pid: process.pid }, `primary started ${workers} workers`)

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    announce(log, { signal }, 'primary: draining workers')
    const running = slots.filter((c): c is Subprocess => c !== undefined && c.exitCode === null)
    for (const child of running) child.kill('SIGTERM')
    const deadline = options.drainDeadlineMs ?? 60_000
    const killer = setTimeout(() => {
      for (const child of running) if (child.exitCode === null) child.kill('SIGKILL')
    }, deadline)
    await Promise.all(running.map((c) => c.exited))
    clearTimeout(killer)
    shared?.close()
    announce(log, {}, 'primary: stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  // Runs until a signal stops it (stop() exits the process).
  return new Promise<never>(() => {})
}

/**
 * Each worker spills to a folder of its own (appends, rotations and replays of one folder by several processes
 * would trip over each other); a replacement takes over its slot's folder and replays what is left there.
 */
function spillEnv(config: GatewayConfig, index: number): Record<string, string> {
  if (config.database.url && !config.logging.audit_spill_dir) return {}
  return { LOGGING_AUDIT_SPILL_DIR: join(spillDirFor(config), `worker-${index}`) }
}

function safeSend(child: Subprocess, message: PrimaryMessage): void {
  try {
    child.send(message)
  } catch {
    // The worker is exiting; its replacement starts from the stores.
  }
}

/** The same program as this process: the compiled binary, or `bun <flags> src/main.ts`. */
function workerCommand(): string[] {
  const script = process.argv[1] ?? ''
  const compiled = script.startsWith('/$bunfs/') || script.startsWith('B:\\~BUN\\')
  return compiled ? [process.execPath, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
}
