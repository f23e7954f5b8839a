/**
 * @module The gateway's Prometheus metrics (prom-client), one registry per Gateway. Request metrics are recorded
 * once per request when it completes (src/observability/request-telemetry.ts); state owned elsewhere (the audit
 * writer's counters, circuit breakers, the process) is read at scrape time through `collect` callbacks, so the
 * code that owns it stays unaware of metrics. Label values are bounded: endpoints and status classes are fixed
 * lists, providers come from configuration, models not in the catalog fold into `other`, and circuits exist only
 * for targets the operator named (plugins/failover), never for a model name a client made up.
 */
import { Counter, Gauge, Registry } from './prom-client.ts'
import type { AuditWriterStats } from '../stores/write-path/audit-writer.ts'
import type { StoreObserver } from '../stores/batch-events.ts'
import type { SnapshotStatus } from '../stores/snapshot.ts'
import type { UsageWriterStats } from '../stores/write-path/usage-writer.ts'
import { type MetricsJson, mergeGroupMetrics, type ProcessMetrics } from './group-metrics.ts'
import { registerProcessMetrics } from './process-metrics.ts'
import { KeyedCounter, KeyedHistogram } from './series.ts'

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]
const BATCH_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export type CircuitState = 'closed' | 'half-open' | 'open'
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 }

/** The other processes of `GATEWAY_WORKERS` (src/workers/link.ts), reached through the primary. */
export interface MetricsGroup {
  provide(local: () => Promise<MetricsJson>): void
  gather(): Promise<ProcessMetrics[]>
}

/** Something that knows the state of its circuits; read at scrape time. */
export interface CircuitSource {
  states(): Iterable<[target: string, state: CircuitState]>
}

export class GatewayMetrics {
  readonly registry = new Registry()
  readonly requests: KeyedCounter
  readonly duration: KeyedHistogram
  readonly ttfb: KeyedHistogram
  readonly overhead: KeyedHistogram
  readonly inFlight: KeyedCounter
  readonly openStreams: KeyedCounter
  readonly attempts: KeyedCounter
  readonly retries: KeyedCounter
  readonly failovers: KeyedCounter
  readonly tokens: KeyedCounter
  readonly cost: KeyedCounter
  readonly cache: KeyedCounter
  readonly denials: KeyedCounter
  readonly guardrailBlocks: KeyedCounter
  readonly storeBatchDuration: KeyedHistogram
  readonly storeErrors: KeyedCounter
  /** Attach to the stores' batch events (src/stores/batch-events.ts): feeds the two store metrics above. */
  readonly storeObserver: StoreObserver
  private readonly circuitSources = new Set<WeakRef<CircuitSource>>()
  private readonly stopProcessMetrics: () => void
  private group?: MetricsGroup

  constructor(auditStats: () => AuditWriterStats, usageStats?: () => UsageWriterStats) {
    const registers = [this.registry]
    const r = this.registry
    this.requests = new KeyedCounter('gateway_requests_total', 'Requests answered, by endpoint, provider, model, status class and stream.', r)
    this.duration = new KeyedHistogram('gateway_request_duration_seconds', 'Time from request start until the response body ended.', LATENCY_BUCKETS, r)
    this.ttfb = new KeyedHistogram('gateway_time_to_first_byte_seconds', 'Time from request start until the first response body byte was handed to the client.', LATENCY_BUCKETS, r)
    this.overhead = new KeyedHistogram(
      'gateway_overhead_seconds',
      "Time of a request not spent in upstream calls: the gateway's own work (and retry back-off waits).",
      OVERHEAD_BUCKETS,
      r,
    )
    this.inFlight = new KeyedCounter('gateway_requests_in_flight', 'Requests started and not yet completed, by endpoint.', r, 'gauge')
    this.openStreams = new KeyedCounter('gateway_open_streams', 'Streamed responses being sent to clients, by endpoint and provider.', r, 'gauge')
    this.attempts = new KeyedCounter(
      'gateway_upstream_attempts_total',
      'Upstream calls, by provider, model, kind (primary, retry, failover), outcome (success, error) and status class.',
      r,
    )
    this.retries = new KeyedCounter('gateway_upstream_retries_total', 'Upstream calls that retried the same target.', r)
    this.failovers = new KeyedCounter('gateway_failovers_total', 'Requests answered by a fallback target, by the target that answered.', r)
    this.tokens = new KeyedCounter('gateway_tokens_total', 'Tokens metered, by provider, model and direction (input, output).', r)
    this.cost = new KeyedCounter('gateway_cost_usd_total', 'Cost of metered requests in USD.', r)
    this.cache = new KeyedCounter('gateway_cache_requests_total', 'Response cache lookups, by result (hit, miss).', r)
    this.denials = new KeyedCounter('gateway_limit_denials_total', 'Requests refused by a limit, by kind (rate_limit, budget).', r)
    this.guardrailBlocks = new KeyedCounter('gateway_guardrail_blocks_total', 'Requests blocked by a guardrail, by endpoint.', r)
    this.storeBatchDuration = new KeyedHistogram(
      'gateway_store_batch_duration_seconds',
      'Time to write one batch of audit entries or usage records that the store took, by store (audit, usage) and backend (sqlite, postgres).',
      BATCH_BUCKETS,
      r,
    )
    this.storeErrors = new KeyedCounter(
      'gateway_store_errors_total',
      'Batch writes the store refused, by store (audit, usage), backend and kind: transient (retried: full disk, busy, unreachable) or permanent (the data itself).',
      r,
    )
    const batchDuration = this.storeBatchDuration
    const storeErrors = this.storeErrors
    this.storeObserver = {
      batchWritten(store, backend, seconds) {
        batchDuration.observe(batchDuration.seriesFor(`${store}|${backend}`, { store, backend }), seconds)
      },
      batchFailed(store, backend, kind) {
        storeErrors.add(`${store}|${backend}|${kind}`, () => ({ store, backend, kind }))
      },
    }

    const sources = this.circuitSources
    new Gauge({
      name: 'gateway_circuit_breaker_state',
      help: 'Circuit of each failover target that has failed recently: 0 closed, 1 half-open, 2 open.',
      labelNames: ['target'],
      registers,
      // Merged over worker processes (src/observability/group-metrics.ts): the worst state any of them sees.
      aggregator: 'max',
      collect() {
        this.reset()
        for (const ref of sources) {
          const source = ref.deref()
          if (!source) sources.delete(ref)
          else for (const [target, state] of source.states()) this.set({ target }, CIRCUIT_VALUE[state])
        }
      },
    })
    registerAuditWriterMetrics(this.registry, auditStats)
    if (usageStats) registerUsageWriterMetrics(this.registry, usageStats)
    this.stopProcessMetrics = registerProcessMetrics(this.registry)
  }

  /** Circuit breakers report their state at scrape time; one dropped with its pipeline disappears. */
  watchCircuits(source: CircuitSource): void {
    this.circuitSources.add(new WeakRef(source))
  }

  /**
   * Each in-memory snapshot's last load (keys, workflows, limits, prices), read when scraped: per process, so a
   * worker whose copy lags (a change feed that stopped) shows.
   */
  watchSnapshots(read: () => readonly SnapshotStatus[]): void {
    new Gauge({
      name: 'gateway_snapshot_loaded_timestamp_seconds',
      help: 'When each in-memory snapshot (keys, workflows, limits, prices) last started a load that succeeded, in Unix seconds: the copy holds the database as of then.',
      labelNames: ['snapshot'],
      registers: [this.registry],
      collect() {
        this.reset()
        for (const s of read()) if (s.loadedAt !== undefined) this.set({ snapshot: s.name }, s.loadedAt / 1000)
      },
    })
  }

  /** In a worker of `GATEWAY_WORKERS`: answers the primary's collections, and `expose` shows every process. */
  joinGroup(group: MetricsGroup): void {
    group.provide(() => this.registry.getMetricsAsJSON())
    this.group = group
  }

  /** The exposition text and its content type: this process's metrics, or with `joinGroup` the whole group's. */
  async expose(): Promise<{ text: string; contentType: string }> {
    const processes = await this.group?.gather().catch(() => undefined)
    const text = processes ? await mergeGroupMetrics(processes) : await this.registry.metrics()
    return { text, contentType: this.registry.contentType }
  }

  stop(): void {
    this.stopProcessMetrics()
  }
}

/** The audit writer's own counters (src/stores/write-path/audit-writer.ts `stats()`), read when scraped. */
function registerAuditWriterMetrics(registry: Registry, stats: () => AuditWriterStats): void {
  scrapedGauge(registry, 'gateway_audit_queue_depth', 'Audit entries waiting in the writer queue.', () => stats().queue_depth)
  scrapedGauge(registry, 'gateway_audit_queue_bytes', 'Estimated bytes held by the audit writer queue.', () => stats().queue_bytes)
  scrapedGauge(registry, 'gateway_audit_spill_files', 'Audit spill files waiting to be replayed.', () => stats().spill_files)
  scrapedGauge(registry, 'gateway_audit_spill_bytes', 'Bytes of audit spill files waiting to be replayed.', () => stats().spill_bytes)
  scrapedGauge(
    registry,
    'gateway_audit_lag_seconds',
    'How long the oldest audit entry not yet stored has waited (queue, memory or spill files); 0 when none waits.',
    () => stats().lag_ms / 1000,
  )
  scrapedGauge(registry, 'gateway_audit_held_entries', 'Audit entries held in memory because neither the database nor the spill folder takes writes.', () => stats().held)
  scrapedGauge(registry, 'gateway_audit_held_bytes', 'Estimated bytes of audit entries held in memory (bound: logging.audit_memory_max_bytes).', () => stats().held_bytes)
  scrapedCounter(
    registry,
    'gateway_audit_entries_total',
    'Audit entries by fate: recorded, written, spilled (queue full), replayed (from spill files), dead_lettered (cannot be encoded or stored), lost (past the memory bound while the disk refused writes), suppressed (auth failure floods), duplicate.',
    'state',
    () => {
      const s = stats()
      return {
        recorded: s.recorded,
        written: s.written,
        spilled: s.spilled,
        replayed: s.replayed,
        dead_lettered: s.failed,
        suppressed: s.suppressed,
        duplicate: s.duplicates,
        lost: s.lost,
      }
    },
  )
  scrapedCounter(registry, 'gateway_audit_batch_failures_total', 'Audit batches that failed to write and were retried.', undefined, () => stats().batch_failures)
}

/** The usage writer's counters (src/stores/write-path/usage-writer.ts `stats()`), read when scraped. */
function registerUsageWriterMetrics(registry: Registry, stats: () => UsageWriterStats): void {
  scrapedGauge(registry, 'gateway_usage_queue_depth', 'Usage records waiting to be written (bound: logging.usage_queue_size).', () => stats().queued)
  scrapedGauge(
    registry,
    'gateway_usage_lag_seconds',
    'How long the oldest usage record not yet stored has waited (queue, memory or spill files); 0 when none waits.',
    () => stats().lag_ms / 1000,
  )
  scrapedCounter(
    registry,
    'gateway_usage_records_total',
    'Usage records by fate: written, rejected (refused by the store for a non-transient reason, logged whole), lost (over the queue bound while the store refused writes).',
    'state',
    () => {
      const { written, rejected, lost } = stats()
      return { written, rejected, lost }
    },
  )
}

/** A gauge whose value is read from its owner when scraped. */
function scrapedGauge(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read())
    },
  })
}

/**
 * A counter whose totals its owner keeps: read when scraped, as one number, or one per value of `label`. (A
 * counter is reset and set again on each scrape; it still only grows, as its owner's totals do.)
 */
function scrapedCounter(registry: Registry, name: string, help: string, label: string | undefined, read: () => number | Record<string, number>): void {
  const counter: Counter = new Counter({
    name,
    help,
    labelNames: label ? [label] : [],
    registers: [registry],
    collect() {
      counter.reset()
      const totals = read()
      if (typeof totals === 'number') counter.inc(totals)
      else for (const [value, total] of Object.entries(totals)) counter.inc({ [label!]: value }, total)
    },
  })
}
