/**
 * @module A worker's side of the IPC channel: the state that must be one for all workers of a machine, kept by
 * the primary and reached through it. Counters (rate limits and budgets stay exact: 10 a minute is 10 for all
 * workers together), the change feed (a key revoked through one worker is refused by all), the lease (one
 * retention job at a time) and the SQLite writes (one writer for the file: the primary's write thread).
 */
import type { AuditRow } from '../audit/record.ts'
import type { MetricsJson, ProcessMetrics } from '../observability/group-metrics.ts'
import { ChangeFanout, type ChangeListener, type Changes, type ChangeTopic } from '../stores/changes.ts'
import { packRows } from '../stores/write-path/packed-rows.ts'
import type { BatchWrites } from '../stores/write-path/write-thread.ts'
import type { Counters, Lease } from '../stores/types.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { PrimaryMessage, WorkerCall, WorkerMessage } from './protocol.ts'

export interface PrimaryLink {
  counters: Counters
  changes: Changes
  lease: Lease
  writes: BatchWrites
  metrics: GroupMetricsLink
}

/** The process group's metrics (src/observability/group-metrics.ts): this worker's own, and everyone's. */
export interface GroupMetricsLink {
  /** What this worker answers when the primary collects (nothing until set). */
  provide(local: () => Promise<MetricsJson>): void
  /** Every process's metrics, gathered by the primary. */
  gather(): Promise<ProcessMetrics[]>
}

/** Connects to the primary over the IPC channel it opened; throws when this process has none. */
export function connectToPrimary(): PrimaryLink {
  if (typeof process.send !== 'function') throw new Error('this process was not started by a gateway primary (no IPC channel)')
  const send = (message: WorkerMessage) => process.send!(message)
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  const fanout = new ChangeFanout()
  let localMetrics = async (): Promise<MetricsJson> => []
  let next = 0

  process.on('message', (message: PrimaryMessage) => {
    if (message.t === 'changed') {
      fanout.deliver(message.topic)
      return
    }
    if (message.t === 'collect-metrics') {
      void localMetrics().then((metrics) => send({ t: 'metrics', id: message.id, metrics }))
      return
    }
    const waiter = pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id)
    if (message.ok) waiter.resolve(message.value)
    else waiter.reject(new Error(message.error))
  })
  // The primary is gone (it never exits before its workers unless killed): nothing shared can be reached any more.
  process.on('disconnect', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the gateway primary process is gone'))
    pending.clear()
    process.kill(process.pid, 'SIGTERM')
  })

  const call = <T>(c: WorkerCall): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      send({ t: 'call', id, call: c })
    })

  const counters: Counters = {
    addWithin: (key, delta, limit, ttlMs) => call({ op: 'addWithin', key, delta, limit, ttlMs }),
    add: (key, delta, ttlMs) => call({ op: 'add', key, delta, ttlMs }),
    get: (key) => call({ op: 'get', key }),
  }
  const changes: Changes = {
    kind: 'workers',
    async publish(topic: ChangeTopic) {
      send({ t: 'publish', topic })
      return true
    },
    subscribe: (topic: ChangeTopic, listener: ChangeListener) => fanout.subscribe(topic, listener),
    async close() {},
  }
  const lease: Lease = {
    async runExclusive(name, job) {
      if (!(await call<boolean>({ op: 'lease', name }))) return undefined
      try {
        return await job()
      } finally {
        send({ t: 'release', name })
      }
    },
  }
  // Encoded here, once: the primary hands them to its write thread without decoding them. When it decoded each
  // batch and encoded it again for the thread, its main thread spent 10–14 µs per request; 5–6.5 µs since
  // (three interleaved pairs of bench/workers.sh's setup, per-thread CPU from /proc, load average 17–20).
  const writes: BatchWrites = {
    writeAudit: (rows: readonly AuditRow[]) => call<number>({ op: 'audit', packed: packRows(rows), count: rows.length }),
    writeUsage: async (records: readonly UsageRecord[]) => {
      await call({ op: 'usage', json: JSON.stringify(records), count: records.length })
    },
    close() {},
  }
  const metrics: GroupMetricsLink = {
    provide(local) {
      localMetrics = () => local().catch(() => [])
    },
    gather: () => call<ProcessMetrics[]>({ op: 'metrics' }),
  }
  return { counters, changes, lease, writes, metrics }
}
