/**
 * @module One `/metrics` for the whole process group of `GATEWAY_WORKERS`: the worker a scrape reaches asks the
 * primary, the primary asks every worker for its registry as prom-client's metric JSON (`getMetricsAsJSON`) over
 * the IPC channel, and the asking worker merges the answers with prom-client's `AggregatorRegistry.aggregate`
 * (its cluster mode cannot be used: it speaks to `node:cluster` workers, and these are `Bun.spawn` processes).
 * Counters and histograms are summed, as are gauges of shared work (in flight, queue depths); a metric of one
 * process (memory, CPU, start time, event-loop lag) keeps one series per process under a `worker` label (the slot,
 * or `primary`); a circuit's state is the worst any worker sees.
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, Registry } from './prom-client.ts'
import { registerProcessMetrics } from './process-metrics.ts'

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[]

/** One process's metrics; `worker` is its slot, or `primary`. */
export interface ProcessMetrics {
  worker: string
  metrics: MetricsJson
}

/** Metrics that describe one process; merged, they stay apart under a `worker` label. */
const PER_PROCESS = new Set([
  'process_resident_memory_bytes',
  'process_heap_bytes',
  'process_cpu_seconds_total',
  'process_start_time_seconds',
  'gateway_event_loop_lag_seconds',
  'gateway_snapshot_loaded_timestamp_seconds',
])

/** The exposition text of every process's metrics merged into one. */
export async function mergeGroupMetrics(processes: readonly ProcessMetrics[]): Promise<string> {
  const labelled = processes.map(({ worker, metrics }) =>
    metrics.map((metric) => (PER_PROCESS.has(metric.name) ? { ...metric, values: metric.values.map((v) => ({ ...v, labels: { ...v.labels, worker } })) } : metric)),
  )
  return AggregatorRegistry.aggregate(labelled).metrics()
}

/** How long the primary waits for a worker's answer; a worker that is restarting or stuck is left out of that scrape. */
const ANSWER_TIMEOUT_MS = 2000

interface Gathering {
  results: ProcessMetrics[]
  waiting: Set<number>
  finish(): void
}

/**
 * The primary's side: asks each running worker (`ask(index, id)` sends the request over IPC), collects the answers
 * handed to `receive`, and adds the primary's own process metrics.
 */
export class WorkerMetricsGathering {
  private readonly pending = new Map<number, Gathering>()
  private next = 0
  private primaryRegistry?: Registry

  gather(workers: readonly number[], ask: (index: number, id: number) => void): Promise<ProcessMetrics[]> {
    const id = this.next++
    return new Promise((resolve) => {
      const gathering: Gathering = {
        results: [],
        waiting: new Set(workers),
        finish: () => {
          clearTimeout(timer)
          this.pending.delete(id)
          void this.primaryMetrics().then((metrics) => resolve([...gathering.results, { worker: 'primary', metrics }]))
        },
      }
      const timer = setTimeout(gathering.finish, ANSWER_TIMEOUT_MS)
      this.pending.set(id, gathering)
      for (const index of workers) ask(index, id)
      if (workers.length === 0) gathering.finish()
    })
  }

  /** A worker's answer to request `id`; late or unknown answers are dropped. */
  receive(index: number, id: number, metrics: MetricsJson): void {
    const gathering = this.pending.get(id)
    if (!gathering?.waiting.delete(index)) return
    gathering.results.push({ worker: String(index), metrics })
    if (gathering.waiting.size === 0) gathering.finish()
  }

  /** The primary serves no requests: its share is its process (the SQLite write thread runs in it). */
  private primaryMetrics(): Promise<MetricsJson> {
    if (!this.primaryRegistry) {
      this.primaryRegistry = new Registry()
      registerProcessMetrics(this.primaryRegistry)
    }
    return this.primaryRegistry.getMetricsAsJSON()
  }
}
