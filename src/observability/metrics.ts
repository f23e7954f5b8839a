/**
 * @module The gateway's Prometheus metrics (prom-client), one registry per Gateway. Request metrics are recorded
 * once per request when it completes (src/observability/request-telemetry.ts); state owned elsewhere (the audit
 * writer's counters, circuit breakers, the process) is read at scrape time through `collect` callbacks, so the
 * code that owns it stays unaware of metrics. Label values are bounded: endpoints and status classes are fixed
 * lists, providers come from configuration, and models not in the catalog fold into `other`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { AuditWriterStats } from '../audit/writer.ts'
import { registerProcessMetrics } from './process-metrics.ts'

/** Labels of the request metrics. */
export const REQUEST_LABELS = ['endpoint', 'provider', 'model', 'status_class', 'stream'] as const
export type RequestLabels = Record<(typeof REQUEST_LABELS)[number], string>

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

export type CircuitState = 'closed' | 'half-open' | 'open'
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 }

/** Something that knows the state of its circuits; read at scrape time. */
export interface CircuitSource {
  states(): Iterable<[target: string, state: CircuitState]>
}

export class GatewayMetrics {
  readonly registry = new Registry()
  readonly requests: Counter<string>
  readonly duration: Histogram<string>
  readonly ttfb: Histogram<string>
  readonly overhead: Histogram<string>
  readonly inFlight: Gauge<string>
  readonly openStreams: Gauge<string>
  readonly attempts: Counter<string>
  readonly retries: Counter<string>
  readonly failovers: Counter<string>
  readonly tokens: Counter<string>
  readonly cost: Counter<string>
  readonly cache: Counter<string>
  readonly denials: Counter<string>
  readonly guardrailBlocks: Counter<string>
  private readonly circuitSources = new Set<WeakRef<CircuitSource>>()
  private readonly stopProcessMetrics: () => void

  constructor(auditStats: () => AuditWriterStats) {
    const registers = [this.registry]
    const labelNames = [...REQUEST_LABELS]
    this.requests = new Counter({ name: 'gateway_requests_total', help: 'Requests answered, by endpoint, provider, model, status class and stream.', labelNames, registers })
    this.duration = new Histogram({ name: 'gateway_request_duration_seconds', help: 'Time from request start until the response body ended.', labelNames, buckets: LATENCY_BUCKETS, registers })
    this.ttfb = new Histogram({ name: 'gateway_time_to_first_byte_seconds', help: 'Time from request start until the first response body byte was handed to the client.', labelNames, buckets: LATENCY_BUCKETS, registers })
    this.overhead = new Histogram({
      name: 'gateway_overhead_seconds',
      help: 'Time of a request not spent in upstream calls: the gateway\'s own work (and retry back-off waits).',
      labelNames,
      buckets: OVERHEAD_BUCKETS,
      registers,
    })
    this.inFlight = new Gauge({ name: 'gateway_requests_in_flight', help: 'Requests started and not yet completed, by endpoint.', labelNames: ['endpoint'], registers })
    this.openStreams = new Gauge({ name: 'gateway_open_streams', help: 'Streamed responses being sent to clients.', labelNames: ['endpoint', 'provider'], registers })
    this.attempts = new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream calls, by provider, model, kind (primary, retry, failover) and outcome (success, error).',
      labelNames: ['provider', 'model', 'kind', 'outcome', 'status_class'],
      registers,
    })
    this.retries = new Counter({ name: 'gateway_upstream_retries_total', help: 'Upstream calls that retried the same target.', labelNames: ['provider', 'model'], registers })
    this.failovers = new Counter({ name: 'gateway_failovers_total', help: 'Requests answered by a fallback target, by the target that answered.', labelNames: ['provider', 'model'], registers })
    this.tokens = new Counter({ name: 'gateway_tokens_total', help: 'Tokens metered, by provider, model and direction (input, output).', labelNames: ['provider', 'model', 'direction'], registers })
    this.cost = new Counter({ name: 'gateway_cost_usd_total', help: 'Cost of metered requests in USD.', labelNames: ['provider', 'model'], registers })
    this.cache = new Counter({ name: 'gateway_cache_requests_total', help: 'Response cache lookups, by result (hit, miss).', labelNames: ['result'], registers })
    this.denials = new Counter({ name: 'gateway_limit_denials_total', help: 'Requests refused by a limit, by kind (rate_limit, budget).', labelNames: ['kind'], registers })
    this.guardrailBlocks = new Counter({ name: 'gateway_guardrail_blocks_total', help: 'Requests blocked by a guardrail.', labelNames: ['endpoint'], registers })

    const sources = this.circuitSources
    new Gauge({
      name: 'gateway_circuit_breaker_state',
      help: 'Circuit of each failover target that has failed recently: 0 closed, 1 half-open, 2 open.',
      labelNames: ['target'],
      registers,
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
    this.stopProcessMetrics = registerProcessMetrics(this.registry)
  }

  /** Circuit breakers report their state at scrape time; one dropped with its pipeline disappears. */
  watchCircuits(source: CircuitSource): void {
    this.circuitSources.add(new WeakRef(source))
  }

  /** The exposition text and its content type. */
  async expose(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType }
  }

  stop(): void {
    this.stopProcessMetrics()
  }
}

/** The audit writer's own counters (src/audit/writer.ts `stats()`), read when scraped. */
function registerAuditWriterMetrics(registry: Registry, stats: () => AuditWriterStats): void {
  const registers = [registry]
  new Gauge({ name: 'gateway_audit_queue_depth', help: 'Audit entries waiting in the writer queue.', registers, collect() { this.set(stats().queue_depth) } })
  new Gauge({ name: 'gateway_audit_queue_bytes', help: 'Estimated bytes held by the audit writer queue.', registers, collect() { this.set(stats().queue_bytes) } })
  new Gauge({ name: 'gateway_audit_spill_files', help: 'Audit spill files waiting to be replayed.', registers, collect() { this.set(stats().spill_files) } })
  const entries = new Counter({
    name: 'gateway_audit_entries_total',
    help: 'Audit entries by fate: recorded, written, spilled (queue full), replayed (from spill files), dead_lettered, suppressed (auth failure floods), duplicate.',
    labelNames: ['state'],
    registers,
    collect() {
      const s = stats()
      entries.reset()
      entries.inc({ state: 'recorded' }, s.recorded)
      entries.inc({ state: 'written' }, s.written)
      entries.inc({ state: 'spilled' }, s.spilled)
      entries.inc({ state: 'replayed' }, s.replayed)
      entries.inc({ state: 'dead_lettered' }, s.failed)
      entries.inc({ state: 'suppressed' }, s.suppressed)
      entries.inc({ state: 'duplicate' }, s.duplicates)
    },
  })
  const batchFailures = new Counter({
    name: 'gateway_audit_batch_failures_total',
    help: 'Audit batches that failed to write and were retried.',
    registers,
    collect() {
      batchFailures.reset()
      batchFailures.inc(stats().batch_failures)
    },
  })
}
