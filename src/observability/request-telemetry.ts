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
import type { GatewayMetrics, RequestLabels } from './metrics.ts'
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

const STATUS_CLASS = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'] as const

export class RequestTelemetry {
  private readonly metrics?: GatewayMetrics
  private readonly tracing?: Tracing
  private readonly accessLog?: Logger
  private readonly overheadHeader: boolean
  private readonly isListedModel: ModelLookup

  constructor(options: RequestTelemetryOptions) {
    this.metrics = options.metrics
    this.tracing = options.tracing
    this.accessLog = options.accessLog
    this.overheadHeader = options.overheadHeader
    this.isListedModel = options.isListedModel
  }

  begin(ctx: RequestContext): void {
    this.metrics?.inFlight.inc({ endpoint: ctx.endpoint })
    if (this.tracing) {
      const traceId = this.tracing.startRequest(ctx)
      if (traceId) ctx.traceId = traceId
    }
  }

  /** The response headers are final: adds the overhead header and counts an open stream. */
  headersReady(ctx: RequestContext, headers: Headers, isStream: boolean): void {
    if (this.overheadHeader) headers.set(OVERHEAD_HEADER, (gatewayOverheadNs(ctx.elapsedNs(), ctx.attempts) / 1e6).toFixed(2))
    if (isStream) this.metrics?.openStreams.inc({ endpoint: ctx.endpoint, provider: ctx.target?.providerName ?? 'none' })
  }

  complete(ctx: RequestContext, outcome: Outcome, wasStream: boolean): void {
    const metrics = this.metrics
    const durationNs = outcome.durationNs
    const provider = ctx.target?.providerName ?? 'none'
    const model = this.modelLabel(ctx)
    if (metrics) {
      const labels: RequestLabels = {
        endpoint: ctx.endpoint,
        provider,
        model,
        status_class: STATUS_CLASS[Math.floor(outcome.status / 100)] ?? '5xx',
        stream: ctx.stream ? 'true' : 'false',
      }
      metrics.inFlight.dec({ endpoint: ctx.endpoint })
      if (wasStream) metrics.openStreams.dec({ endpoint: ctx.endpoint, provider })
      metrics.requests.inc(labels)
      metrics.duration.observe(labels, durationNs / 1e9)
      if (outcome.ttfbMs !== undefined) metrics.ttfb.observe(labels, outcome.ttfbMs / 1e3)
      metrics.overhead.observe(labels, gatewayOverheadNs(durationNs, ctx.attempts) / 1e9)
      if (ctx.attempts.length > 0) this.countAttempts(metrics, ctx)
      this.countPolicy(metrics, ctx, outcome)
    }
    this.tracing?.endRequest(ctx, outcome)
    this.accessLog?.info(
      {
        request_id: ctx.requestId,
        method: ctx.method,
        endpoint: ctx.endpoint,
        status: outcome.status,
        duration_ms: Math.round(durationNs / 1e4) / 100,
        model: ctx.target?.selector ?? ctx.requestedModel ?? '',
        key_id: ctx.principal?.keyId ?? ctx.principal?.id ?? '',
        stream: ctx.stream,
        ...(outcome.error ? { error_code: outcome.error.code ?? outcome.error.type } : {}),
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      },
      'request',
    )
  }

  /** A model the catalog lists keeps its name; anything a client made up becomes `other`. */
  private modelLabel(ctx: RequestContext): string {
    const target = ctx.target
    if (!target) return 'none'
    return this.isListedModel(target.providerName, target.model) ? target.model : 'other'
  }

  private countAttempts(metrics: GatewayMetrics, ctx: RequestContext): void {
    for (const attempt of ctx.attempts) {
      const model = this.isListedModel(attempt.provider_name, attempt.model) ? attempt.model : 'other'
      const status = attempt.status_code
      metrics.attempts.inc({
        provider: attempt.provider_name,
        model,
        kind: attempt.kind,
        outcome: attempt.success ? 'success' : 'error',
        status_class: status ? (STATUS_CLASS[Math.floor(status / 100)] ?? '5xx') : 'none',
      })
      if (attempt.kind === 'retry') metrics.retries.inc({ provider: attempt.provider_name, model })
    }
    if (ctx.failover && ctx.target) metrics.failovers.inc({ provider: ctx.target.providerName, model: this.modelLabel(ctx) })
  }

  /** Tokens, cost, cache results, limit denials and guardrail blocks. */
  private countPolicy(metrics: GatewayMetrics, ctx: RequestContext, outcome: Outcome): void {
    // The usage meter's priced record when it ran, else the upstream's own counts.
    const usage = outcome.usageRecord ?? outcome.usage
    if (usage && ctx.target) {
      const provider = ctx.target.providerName
      const model = this.modelLabel(ctx)
      metrics.tokens.inc({ provider, model, direction: 'input' }, usage.prompt_tokens)
      metrics.tokens.inc({ provider, model, direction: 'output' }, usage.completion_tokens)
      const cost = outcome.usageRecord?.cost_usd ?? 0
      if (cost > 0) metrics.cost.inc({ provider, model }, cost)
    }
    if (ctx.features.cache && ctx.endpoint === 'chat.completions' && ctx.target) metrics.cache.inc({ result: ctx.cacheType ? 'hit' : 'miss' })
    const code = ctx.error?.code
    if (code === 'rate_limit_exceeded') metrics.denials.inc({ kind: 'rate_limit' })
    else if (code === 'budget_exceeded') metrics.denials.inc({ kind: 'budget' })
    else if (code === 'guardrail_blocked') metrics.guardrailBlocks.inc({ endpoint: ctx.endpoint })
  }
}

/** Time not spent inside upstream calls (attempt durations; a stream's last attempt lasts until its end). */
export function gatewayOverheadNs(elapsedNs: number, attempts: readonly AttemptSnapshot[]): number {
  let upstream = 0
  for (const attempt of attempts) upstream += attempt.duration_ns
  return Math.max(0, elapsedNs - upstream)
}
