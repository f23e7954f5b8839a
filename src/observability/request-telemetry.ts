/**
 * @module What the request path reports, in three calls the pipeline makes (src/pipeline/run.ts): `begin` when
 * a request starts, `headersReady` when its response headers are about to leave, `complete` once after its body
 * ended (after every plugin's `onComplete`). It feeds the Prometheus
 * metrics, the trace spans, the access log and the `x-gateway-overhead-ms` header; each part is optional.
 */
import type { Logger } from '../log/logger.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { AttemptSnapshot } from '../pipeline/snapshots.ts'
import type { Outcome } from '../pipeline/types.ts'
import type { GatewayMetrics } from './metrics.ts'
import type { CounterSeries, HistogramSeries } from './series.ts'
import type { Tracing } from './tracing.ts'

export const OVERHEAD_HEADER = 'x-gateway-overhead-ms'

/** Whether a model id is one the catalog lists for the provider (others fold into `other`). */
export type ModelLookup = (providerName: string, model: string) => boolean

export interface RequestTelemetryOptions {
  metrics?: GatewayMetrics
  tracing?: Tracing
  /** One line per request at info level; undefined when the access log is off. */
  accessLog?: Logger
  overheadHeader: boolean
  isListedModel: ModelLookup
}

interface RequestSeries {
  requests: CounterSeries
  duration: HistogramSeries
  ttfb: HistogramSeries
  overhead: HistogramSeries
}

const STATUS_CLASS = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'] as const

export class RequestTelemetry {
  private readonly metrics?: GatewayMetrics
  private readonly tracing?: Tracing
  private readonly accessLog?: Logger
  private readonly overheadHeader: boolean
  private readonly isListedModel: ModelLookup
  /** The request metrics' series by label set (bounded like the labels). */
  private readonly requestSeries = new Map<string, RequestSeries>()

  constructor(options: RequestTelemetryOptions) {
    this.metrics = options.metrics
    this.tracing = options.tracing
    this.accessLog = options.accessLog
    this.overheadHeader = options.overheadHeader
    this.isListedModel = options.isListedModel
  }

  begin(ctx: RequestContext): void {
    const endpoint = ctx.endpoint
    this.metrics?.inFlight.add(endpoint, () => ({ endpoint }))
    if (this.tracing) {
      const traceId = this.tracing.startRequest(ctx)
      if (traceId) ctx.traceId = traceId
    }
  }

  /** The response headers are final: adds the overhead header and counts an open stream. */
  headersReady(ctx: RequestContext, headers: Headers, isStream: boolean): void {
    if (this.overheadHeader) headers.set(OVERHEAD_HEADER, (gatewayOverheadNs(ctx.elapsedNs(), ctx.attempts) / 1e6).toFixed(2))
    if (isStream && this.metrics) {
      const endpoint = ctx.endpoint
      const provider = ctx.target?.providerName ?? 'none'
      this.metrics.openStreams.add(`${endpoint}|${provider}`, () => ({ endpoint, provider }))
    }
  }

  complete(ctx: RequestContext, outcome: Outcome, wasStream: boolean): void {
    const metrics = this.metrics
    if (metrics) this.record(metrics, ctx, outcome, wasStream)
    this.tracing?.endRequest(ctx, outcome)
    this.accessLog?.info(
      {
        request_id: ctx.requestId,
        method: ctx.method,
        endpoint: ctx.endpoint,
        status: outcome.status,
        duration_ms: Math.round(outcome.durationNs / 1e4) / 100,
        model: ctx.target?.selector ?? ctx.requestedModel ?? '',
        key_id: ctx.principal?.keyId ?? ctx.principal?.id ?? '',
        stream: ctx.stream,
        ...(outcome.error ? { error_code: outcome.error.code ?? outcome.error.type } : {}),
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      },
      'request',
    )
  }

  private record(metrics: GatewayMetrics, ctx: RequestContext, outcome: Outcome, wasStream: boolean): void {
    const endpoint = ctx.endpoint
    const provider = ctx.target?.providerName ?? 'none'
    const model = this.modelLabel(ctx)
    const statusClass = STATUS_CLASS[Math.floor(outcome.status / 100)] ?? '5xx'
    const stream = ctx.stream ? 'true' : 'false'
    // One lookup finds the series of all four request metrics for this label set.
    const key = `${endpoint}|${provider}|${model}|${statusClass}|${stream}`
    let series = this.requestSeries.get(key)
    if (!series) {
      const labels = { endpoint, provider, model, status_class: statusClass, stream }
      series = {
        requests: metrics.requests.seriesFor(key, labels),
        duration: metrics.duration.seriesFor(key, labels),
        ttfb: metrics.ttfb.seriesFor(key, labels),
        overhead: metrics.overhead.seriesFor(key, labels),
      }
      this.requestSeries.set(key, series)
    }
    const durationNs = outcome.durationNs
    metrics.inFlight.add(endpoint, () => ({ endpoint }), -1)
    if (wasStream) metrics.openStreams.add(`${endpoint}|${provider}`, () => ({ endpoint, provider }), -1)
    series.requests.value++
    metrics.duration.observe(series.duration, durationNs / 1e9)
    if (outcome.ttfbMs !== undefined) metrics.ttfb.observe(series.ttfb, outcome.ttfbMs / 1e3)
    metrics.overhead.observe(series.overhead, gatewayOverheadNs(durationNs, ctx.attempts) / 1e9)
    if (ctx.attempts.length > 0) this.countAttempts(metrics, ctx, model)
    this.countPolicy(metrics, ctx, outcome, provider, model)
  }

  /** A model the catalog lists keeps its name; anything a client made up becomes `other`. */
  private modelLabel(ctx: RequestContext): string {
    const target = ctx.target
    if (!target) return 'none'
    return this.isListedModel(target.providerName, target.model) ? target.model : 'other'
  }

  private countAttempts(metrics: GatewayMetrics, ctx: RequestContext, requestModel: string): void {
    for (const attempt of ctx.attempts) {
      const provider = attempt.provider_name
      const model = this.isListedModel(provider, attempt.model) ? attempt.model : 'other'
      const kind = attempt.kind
      const outcome = attempt.success ? 'success' : 'error'
      const status = attempt.status_code
      const statusClass = status ? (STATUS_CLASS[Math.floor(status / 100)] ?? '5xx') : 'none'
      metrics.attempts.add(`${provider}|${model}|${kind}|${outcome}|${statusClass}`, () => ({ provider, model, kind, outcome, status_class: statusClass }))
      if (kind === 'retry') metrics.retries.add(`${provider}|${model}`, () => ({ provider, model }))
    }
    if (ctx.failover && ctx.target) {
      const provider = ctx.target.providerName
      metrics.failovers.add(`${provider}|${requestModel}`, () => ({ provider, model: requestModel }))
    }
  }

  /** Tokens, cost, cache results, limit denials and guardrail blocks. */
  private countPolicy(metrics: GatewayMetrics, ctx: RequestContext, outcome: Outcome, provider: string, model: string): void {
    // The priced record when usage is metered, else the upstream's own counts.
    const usage = outcome.usageRecord ?? outcome.usage
    if (usage && ctx.target) {
      const key = `${provider}|${model}`
      metrics.tokens.add(`${key}|input`, () => ({ provider, model, direction: 'input' }), usage.prompt_tokens)
      metrics.tokens.add(`${key}|output`, () => ({ provider, model, direction: 'output' }), usage.completion_tokens)
      const cost = outcome.usageRecord?.cost_usd ?? 0
      if (cost > 0) metrics.cost.add(key, () => ({ provider, model }), cost)
    }
    if (ctx.features.cache && ctx.endpoint === 'chat.completions' && ctx.target) {
      const result = ctx.cacheType ? 'hit' : 'miss'
      metrics.cache.add(result, () => ({ result }))
    }
    // Only the gateway's own refusals: an upstream's 429 also carries `rate_limit_exceeded`, with its provider.
    const error = ctx.error
    const code = error && !error.provider ? error.code : undefined
    if (code === 'rate_limit_exceeded') metrics.denials.add('rate_limit', () => ({ kind: 'rate_limit' }))
    else if (code === 'budget_exceeded') metrics.denials.add('budget', () => ({ kind: 'budget' }))
    else if (code === 'guardrail_blocked') {
      const endpoint = ctx.endpoint
      metrics.guardrailBlocks.add(endpoint, () => ({ endpoint }))
    }
  }
}

/** Time not spent inside upstream calls (attempt durations; a stream's last attempt lasts until its end). */
export function gatewayOverheadNs(elapsedNs: number, attempts: readonly AttemptSnapshot[]): number {
  let upstream = 0
  for (const attempt of attempts) upstream += attempt.duration_ns
  return Math.max(0, elapsedNs - upstream)
}
