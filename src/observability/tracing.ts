/**
 * @module OpenTelemetry traces: one SERVER span per request, continuing an incoming `traceparent`, and one
 * CLIENT span per upstream attempt whose context travels upstream as `traceparent`. Attributes follow the
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`) plus the gateway's own (`gateway.*`). Spans are batched
 * and sent as OTLP/HTTP JSON. Nothing of this runs when tracing is off: no Tracing object exists then, and the
 * request path checks for it once. Contexts are passed explicitly (no global context manager).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type TextMapGetter, type TextMapSetter, type Tracer } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import type { Logger } from '../log/logger.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { endpoint } from '../protocols/endpoints.ts'
import type { AttemptSnapshot } from '../pipeline/snapshots.ts'
import type { Outcome } from '../pipeline/types.ts'
import { tracedRequest, type TracedRequest } from './trace-context.ts'
import type { TracingSettings } from './tracing-config.ts'

const GATEWAY_VERSION = '0.1.0'

/** Well-known `gen_ai.provider.name` values by provider type; other types use their own name. */
const PROVIDER_NAME: Record<string, string> = {
  azure: 'azure.ai.openai',
  gemini: 'gcp.gemini',
  mistral: 'mistral_ai',
  xai: 'x_ai',
}

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
}
const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value
  },
}

export class Tracing {
  private readonly provider: TracerProvider
  private readonly tracer: Tracer
  private readonly propagator = new W3CTraceContextPropagator()

  constructor(
    private readonly settings: TracingSettings,
    log: Logger,
  ) {
    const exporter = new OTLPTraceExporter({ url: settings.url })
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName, 'service.version': GATEWAY_VERSION }),
      sampler: settings.sampler,
      spanProcessors: [new BatchSpanProcessor({ exporter })],
    })
    this.tracer = this.provider.getTracer('ai-gateway', GATEWAY_VERSION)
    log.info({ otlp_traces_url: settings.url, service_name: settings.serviceName, sampler: settings.samplerName, capture_content: settings.captureContent }, 'tracing on')
  }

  /** Starts the request's span (a child of the client's `traceparent`, if any); returns its trace id when sampled. */
  startRequest(ctx: RequestContext): string | undefined {
    const parent = ctx.headers.has('traceparent') ? this.propagator.extract(ROOT_CONTEXT, ctx.headers, headerGetter) : ROOT_CONTEXT
    // The row's route pattern (`http.route` is the template in the server framework's own syntax): span names
    // never carry raw paths.
    const route = endpoint(ctx.endpoint).path
    const span = this.tracer.startSpan(
      `${ctx.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        startTime: ctx.startedAt,
        attributes: { 'http.request.method': ctx.method, 'http.route': route, 'gateway.request_id': ctx.requestId, 'gateway.endpoint': ctx.endpoint },
      },
      parent,
    )
    ctx.setState(tracedRequest, { span, context: trace.setSpan(parent, span), startAttempt: this.startAttempt })
    const spanContext = span.spanContext()
    return spanContext.traceFlags & 1 ? spanContext.traceId : undefined
  }

  /**
   * Starts the span of one upstream call and writes its `traceparent` into the outgoing headers. The returned
   * function ends the span; it reads the attempt's outcome a microtask later, once the caller has filled it in.
   */
  private readonly startAttempt = (request: TracedRequest, ctx: RequestContext, attempt: AttemptSnapshot, headers: Record<string, string>): (() => void) => {
    // An unsampled request records no spans: the upstream gets the request's own context (flags 00), and no
    // attempt span is made for nothing.
    if (!request.span.isRecording()) {
      this.propagator.inject(request.context, headers, recordSetter)
      return noop
    }
    const operation = endpoint(ctx.endpoint).api.genAiOperation
    const attributes: Attributes = {
      'gen_ai.provider.name': genAiProviderName(attempt.provider_type),
      'gen_ai.request.model': attempt.model,
      'gateway.provider': attempt.provider_name,
      'gateway.attempt.kind': attempt.kind,
      'gateway.attempt.seq': attempt.seq,
    }
    if (operation) attributes['gen_ai.operation.name'] = operation
    const span = this.tracer.startSpan(`${operation ?? ctx.endpoint} ${attempt.model}`, { kind: SpanKind.CLIENT, attributes }, request.context)
    this.propagator.inject(trace.setSpan(request.context, span), headers, recordSetter)
    let ended = false
    return () => {
      if (ended) return
      ended = true
      const endTime = new Date()
      queueMicrotask(() => {
        if (attempt.status_code) span.setAttribute('http.response.status_code', attempt.status_code)
        if (!attempt.success) {
          span.setAttribute('error.type', attempt.error_code || attempt.error_type || String(attempt.status_code || 'error'))
          span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error_message })
        }
        span.end(endTime)
      })
    }
  }

  /** Ends the request's span with what the request came to. */
  endRequest(ctx: RequestContext, outcome: Outcome): void {
    const request = ctx.state(tracedRequest)
    if (!request) return
    ctx.setState(tracedRequest, undefined)
    const { span } = request
    if (!span.isRecording()) return span.end()
    const operation = endpoint(ctx.endpoint).api.genAiOperation
    const target = ctx.target
    const attributes: Attributes = { 'http.response.status_code': outcome.status, 'gateway.workflow_version': ctx.workflowVersionId, 'gateway.cache_hit': ctx.cacheType !== '' }
    if (operation) attributes['gen_ai.operation.name'] = operation
    if (ctx.requestedModel) attributes['gen_ai.request.model'] = ctx.requestedModel
    if (target) {
      attributes['gen_ai.provider.name'] = genAiProviderName(target.providerType)
      attributes['gateway.provider'] = target.providerName
      attributes['gateway.target'] = target.selector
    }
    // The answer before the output hooks when only that was captured (a cache's workflow): same model and finish.
    const body = (outcome.responseBody ?? (outcome.status < 400 ? outcome.routeAnswer : undefined)) as Record<string, unknown> | undefined
    const responseModel = typeof body?.model === 'string' ? body.model : target?.model
    if (responseModel && outcome.status < 400) attributes['gen_ai.response.model'] = responseModel
    if (typeof body?.id === 'string') attributes['gen_ai.response.id'] = body.id
    const finishReasons = finishReasonsOf(body)
    if (finishReasons.length > 0) attributes['gen_ai.response.finish_reasons'] = finishReasons
    if (outcome.usage) {
      attributes['gen_ai.usage.input_tokens'] = outcome.usage.prompt_tokens
      attributes['gen_ai.usage.output_tokens'] = outcome.usage.completion_tokens
    }
    if (ctx.principal?.keyId) attributes['gateway.key_id'] = ctx.principal.keyId
    else if (ctx.principal) attributes['gateway.principal'] = ctx.principal.id
    if (ctx.failover) attributes['gateway.failover_target'] = ctx.failover.target_model
    if (ctx.attempts.length > 0) attributes['gateway.attempts'] = ctx.attempts.length
    if (ctx.stream) attributes['gateway.stream'] = true
    if (outcome.clientAborted) attributes['gateway.client_aborted'] = true
    if (this.settings.captureContent) {
      if (ctx.originalBodyText) attributes['gen_ai.input.messages'] = ctx.originalBodyText
      if (body !== undefined) attributes['gen_ai.output.messages'] = JSON.stringify(body)
    }
    const error = outcome.error
    if (error) {
      attributes['error.type'] = error.code || error.type
      if (outcome.status >= 500 || outcome.status < 400) span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
    } else if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.setAttributes(attributes)
    span.end()
  }

  /** Sends what is buffered; for tests and shutdown. */
  flush(): Promise<void> {
    return this.provider.forceFlush()
  }

  /**
   * Sends what is buffered and stops, within `deadlineMs`: the exporter retries an unreachable collector with
   * back-off for longer than a shutdown can wait, so spans not sent by then are dropped.
   */
  async shutdown(deadlineMs = 2000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs)
    })
    try {
      await Promise.race([this.provider.shutdown(), deadline])
    } finally {
      clearTimeout(timer)
    }
  }
}

const noop = () => {}

function genAiProviderName(providerType: string): string {
  return PROVIDER_NAME[providerType] ?? providerType
}

/** Finish reasons of a Chat Completions, Responses or Anthropic Messages answer (when it was captured). */
function finishReasonsOf(body: Record<string, unknown> | undefined): string[] {
  if (!body) return []
  if (Array.isArray(body.choices)) {
    return body.choices.map((c) => (c as Record<string, unknown>)?.finish_reason).filter((r): r is string => typeof r === 'string')
  }
  if (typeof body.stop_reason === 'string') return [body.stop_reason]
  if (typeof body.status === 'string' && body.object === 'response') return [body.status]
  return []
}
