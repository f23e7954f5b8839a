/**
 * @module What the request path reports, in three calls the pipeline makes (src/pipeline/run.ts): `begin` when
 * a request starts, `headersReady` when its response headers are about to leave, `complete` once after its body
 * ended (after every plugin's `onComplete`). It feeds the Prometheus
 * metrics, the trace spans, the access log and the `x-gateway-overhead-ms` header; each part is optional.
 */
import type { Logger } from '../log/logger.ts'
import { endpoint } from '../protocols/endpoints.ts'
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

/** The series one label set (endpoint, provider, model, status class, stream) updates; the later ones made on first use. */
interface RequestSeries {
  requests: CounterSeries
  duration: HistogramSeries
  ttfb: HistogramSeries
  overhead: HistogramSeries
  inFlight: CounterSeries
  /** The common attempt: one primary call to this provider and model that succeeded with a 2xx. */
  primarySuccess?: CounterSeries
  tokensIn?: CounterSeries
  tokensOut?: CounterSeries
  cost?: CounterSeries
}

const STATUS_CLASS = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'] as const
/** Per (endpoint, provider, model): the series by status class and stream (index `class * 2 + stream`). */
type SeriesByOutcome = (RequestSeries | undefined)[]

export class RequestTelemetry {
  private readonly metrics?: GatewayMetrics
  private readonly tracing?: Tracing
  private readonly accessLog?: Logger
  private readonly overheadHeader: boolean
  private readonly isListedModel: ModelLookup
  /**
   * The request metrics' series by endpoint, provider and model label (bounded like the labels): nested maps keyed
   * by strings the request already holds, so recording allocates nothing once a label set has been seen.
   */
  private readonly requestSeries = new Map<string, Map<string, Map<string, SeriesByOutcome>>>()
  private readonly inFlightSeries = new Map<string, CounterSeries>()

  constructor(options: RequestTelemetryOptions) {
    this.metrics = options.metrics
    this.tracing = options.tracing
    // The line's fields are gathered only when the logger would write them.
    this.accessLog = options.accessLog?.isLevelEnabled('info') ? options.accessLog : undefined
    this.overheadHeader = options.overheadHeader
    this.isListedModel = options.isListedModel
  }

  begin(ctx: RequestContext): void {
    if (this.metrics) this.inFlight(this.metrics, ctx.endpoint).value++
    if (this.tracing) {
      const traceId = this.tracing.startRequest(ctx)
      if (traceId) ctx.traceId = traceId
    }
  }

  /** The response headers are final: adds the overhead header and counts an open stream. */
  headersReady(ctx: RequestContext, headers: Headers, isStream: boolean): void {
    if (this.overheadHeader) headers.set(OVERHEAD_HEADER, formatMs(gatewayOverheadNs(ctx.elapsedNs(), ctx.attempts)))
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

  private inFlight(metrics: GatewayMetrics, endpoint: string): CounterSeries {
    let series = this.inFlightSeries.get(endpoint)
    if (!series) this.inFlightSeries.set(endpoint, (series = metrics.inFlight.seriesFor(endpoint, { endpoint })))
    return series
  }

  private record(metrics: GatewayMetrics, ctx: RequestContext, outcome: Outcome, wasStream: boolean): void {
    const endpoint = ctx.endpoint
    const target = ctx.target
    const provider = target?.providerName ?? 'none'
    const model = this.modelLabel(ctx)
    const classIndex = Math.min(5, Math.floor(outcome.status / 100))
    const series = this.seriesFor(metrics, endpoint, provider, model, classIndex, ctx.stream)
    const durationNs = outcome.durationNs
    series.inFlight.value--
    if (wasStream) metrics.openStreams.add(`${endpoint}|${provider}`, () => ({ endpoint, provider }), -1)
    series.requests.value++
    metrics.duration.observe(series.duration, durationNs / 1e9)
    if (outcome.ttfbMs !== undefined) metrics.ttfb.observe(series.ttfb, outcome.ttfbMs / 1e3)
    metrics.overhead.observe(series.overhead, gatewayOverheadNs(durationNs, ctx.attempts) / 1e9)
    const attempts = ctx.attempts
    if (attempts.length === 1 && target && !ctx.failover && isPrimarySuccessOn(attempts[0]!, provider, target.model)) {
      series.primarySuccess ??= metrics.attempts.seriesFor(attemptKey(provider, model, 'primary', 'success', '2xx'), attemptLabels(provider, model, 'primary', 'success', '2xx'))
      series.primarySuccess.value++
    } else if (attempts.length > 0) this.countAttempts(metrics, ctx, model)
    this.countPolicy(metrics, ctx, outcome, series, provider, model)
  }

  /** The series of one label set: three map lookups with strings the request holds, and an index. */
  private seriesFor(metrics: GatewayMetrics, endpoint: string, provider: string, model: string, classIndex: number, isStream: boolean): RequestSeries {
    let byProvider = this.requestSeries.get(endpoint)
    if (!byProvider) this.requestSeries.set(endpoint, (byProvider = new Map()))
    let byModel = byProvider.get(provider)
    if (!byModel) byProvider.set(provider, (byModel = new Map()))
    let byOutcome = byModel.get(model)
    if (!byOutcome) byModel.set(model, (byOutcome = []))
    const index = classIndex * 2 + (isStream ? 1 : 0)
    let series = byOutcome[index]
    if (!series) {
      const statusClass = STATUS_CLASS[classIndex]!
      const stream = isStream ? 'true' : 'false'
      const key = `${endpoint}|${provider}|${model}|${statusClass}|${stream}`
      const labels = { endpoint, provider, model, status_class: statusClass, stream }
      series = {
        requests: metrics.requests.seriesFor(key, labels),
        duration: metrics.duration.seriesFor(key, labels),
        ttfb: metrics.ttfb.seriesFor(key, labels),
        overhead: metrics.overhead.seriesFor(key, labels),
        inFlight: this.inFlight(metrics, endpoint),
      }
      byOutcome[index] = series
    }
    return series
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
      const statusClass = status ? (STATUS_CLASS[Math.min(5, Math.floor(status / 100))] ?? '5xx') : 'none'
      metrics.attempts.add(attemptKey(provider, model, kind, outcome, statusClass), () => attemptLabels(provider, model, kind, outcome, statusClass))
      if (kind === 'retry') metrics.retries.add(`${provider}|${model}`, () => ({ provider, model }))
    }
    if (ctx.failover && ctx.target) {
      const provider = ctx.target.providerName
      metrics.failovers.add(`${provider}|${requestModel}`, () => ({ provider, model: requestModel }))
    }
  }

  /** Tokens, cost, cache results, limit denials and guardrail blocks. */
  private countPolicy(metrics: GatewayMetrics, ctx: RequestContext, outcome: Outcome, series: RequestSeries, provider: string, model: string): void {
    // The priced record when usage is metered, else the upstream's own counts.
    const usage = outcome.usageRecord ?? outcome.usage
    if (usage && ctx.target) {
      series.tokensIn ??= metrics.tokens.seriesFor(`${provider}|${model}|input`, { provider, model, direction: 'input' })
      series.tokensOut ??= metrics.tokens.seriesFor(`${provider}|${model}|output`, { provider, model, direction: 'output' })
      series.tokensIn.value += usage.prompt_tokens
      series.tokensOut.value += usage.completion_tokens
      const cost = outcome.usageRecord?.cost_usd ?? 0
      if (cost > 0) {
        series.cost ??= metrics.cost.seriesFor(`${provider}|${model}`, { provider, model })
        series.cost.value += cost
      }
    }
    const cache = ctx.features.cache && ctx.target ? endpoint(ctx.endpoint).api.cache : null
    // Where the response cache looks (plugins/response-cache): a cacheable API, streams only where it replays them.
    if (cache && (!ctx.stream || cache.replayStream)) {
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

function isPrimarySuccessOn(attempt: AttemptSnapshot, provider: string, model: string): boolean {
  return attempt.kind === 'primary' && attempt.success && attempt.status_code >= 200 && attempt.status_code < 300 && attempt.provider_name === provider && attempt.model === model
}

const attemptKey = (provider: string, model: string, kind: string, outcome: string, statusClass: string) => `${provider}|${model}|${kind}|${outcome}|${statusClass}`
const attemptLabels = (provider: string, model: string, kind: string, outcome: string, statusClass: string) => ({ provider, model, kind, outcome, status_class: statusClass })

/** Nanoseconds as milliseconds with two decimals, like `(ns / 1e6).toFixed(2)` at a fraction of its cost. */
export function formatMs(ns: number): string {
  const hundredths = Math.round(ns / 1e4)
  const fraction = hundredths % 100
  return `${(hundredths - fraction) / 100}.${fraction < 10 ? '0' : ''}${fraction}`
}

/** Time not spent inside upstream calls (attempt durations; a stream's last attempt lasts until its end). */
export function gatewayOverheadNs(elapsedNs: number, attempts: readonly AttemptSnapshot[]): number {
  let upstream = 0
  for (const attempt of attempts) upstream += attempt.duration_ns
  return Math.max(0, elapsedNs - upstream)
}
