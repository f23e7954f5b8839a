/**
 * @module Runs one request through its pipeline: routing hooks (auth, resolve), workflow selection, policy
 * hooks, the route stage (or a hook answering in its place), `onResponse` wrappers, and then hands the body to
 * the client through one pump that forwards bytes as they arrive, ends broken streams with a well-formed error
 * frame, and calls every `onComplete` exactly once when the body has really ended.
 */
import { errorResponse, GatewayError, gatewayErrors, toGatewayError } from '../errors/gateway-error.ts'
import { endpoint, type Endpoint, type LocalServices } from '../protocols/endpoints.ts'
import type { RequestTelemetry } from '../observability/request-telemetry.ts'
import type { BuiltPipeline, PipelineSelector } from './build.ts'
import type { RequestContext } from './context.ts'
import { endsEvent, isEventStream, KEEPALIVE_FRAME, SseParser } from './sse.ts'
import { opaqueStreamCodec, type StreamFold } from './stream-codecs.ts'
import { passBytes } from './byte-pump.ts'
import type { Decision, Outcome } from './types.ts'
import { estimateUsage, meterUsage, needsEstimatedUsage } from '../usage/meter.ts'
import { isUsageCounted } from '../usage/gateway-counted.ts'
import { answerText, parsedAnswer, parseJsonOrUndefined } from './json-answer.ts'
import { keepRouteAnswer, routeAnswerOf } from './route-answer.ts'
import { verbatimBody } from './verbatim.ts'

/** `LocalServices`: what the rows the gateway answers itself (their `local`: model list, files, unknown routes) read. */
export interface RunOptions extends LocalServices {
  keepaliveMs: number
  /** Metrics, traces and the access log; told when a request begins, when its headers leave and when it ends. */
  telemetry?: RequestTelemetry
}

export async function runPipeline(ctx: RequestContext, selector: PipelineSelector, options: RunOptions): Promise<Response> {
  options.telemetry?.begin(ctx)
  let pipeline = selector.fallback
  applyPipeline(ctx, pipeline)
  let response: Response
  try {
    const routed = runHooks(ctx, pipeline.routingHooks)
    const decided = routed instanceof Promise ? await routed : routed
    if (decided) {
      const ended = endWith(ctx, pipeline, decided)
      response = ended instanceof Promise ? await ended : ended
    } else response = await routeAndRespond()
  } catch (error) {
    response = failWith(ctx, toGatewayError(error))
    if (!(error instanceof GatewayError)) ctx.log.error({ err: error }, 'pipeline failed')
  }
  return deliver(ctx, pipeline, response, options)

  async function routeAndRespond(): Promise<Response> {
    const selected = selector.select(ctx)
    if (selected !== pipeline) {
      pipeline = selected
      applyPipeline(ctx, pipeline)
    }
    ctx.workflowChosen(ctx.principal?.keyId, ctx.target?.selector ?? ctx.requestedModel, pipeline.workflow.versionId)
    const policy = runHooks(ctx, pipeline.policyHooks)
    const early = policy instanceof Promise ? await policy : policy
    if (early) return endWith(ctx, pipeline, early)
    const local = endpoint(ctx.endpoint).local
    if (local) {
      const pending = local(ctx, options)
      const answer = pending instanceof Promise ? await pending : pending
      return answer instanceof GatewayError ? failWith(ctx, answer) : answer
    }
    // A routed row left without a target (a stored response the caller may not see, or whose provider is gone) is
    // the gateway's answer, given only now that rate limits and budgets have counted the call.
    const fallback = ctx.target ? undefined : endpoint(ctx.endpoint).api.upstream?.fallback
    const dispatched = fallback ? await fallback(ctx.body, ctx) : (ctx.batchLine?.route?.(ctx) ?? (await dispatch()))
    if (dispatched instanceof GatewayError) return failWith(ctx, dispatched)
    return ctx.capture.routeAnswer ? answered(ctx, pipeline, dispatched) : throughOnResponse(ctx, pipeline, dispatched)
  }

  function dispatch() {
    if (!pipeline.dispatch) throw gatewayErrors.internal('No route plugin is active in this workflow.')
    return pipeline.dispatch(ctx)
  }
}

/** The pipeline that runs the request decides its workflow, features and what is captured. */
function applyPipeline(ctx: RequestContext, pipeline: BuiltPipeline): void {
  ctx.workflowVersionId = pipeline.workflow.versionId
  ctx.features = pipeline.workflow.features
  ctx.capture = pipeline.capture(ctx.endpoint)
  // The audit entry, made when the request ends (a stream's after the client may have gone), records the address.
  if (ctx.features.audit) ctx.keepClientIp()
}

/** A decision that ends the `before` hooks. */
type Ending = Exclude<Decision, { kind: 'continue' }>

/**
 * Runs `before` hooks in order until one ends them (its decision) or all continue (undefined). Most hooks are
 * synchronous: a promise, and its microtask turns, only from the first hook that returns one.
 */
function runHooks(ctx: RequestContext, hooks: BuiltPipeline['routingHooks'], from = 0): Ending | undefined | Promise<Ending | undefined> {
  for (let i = from; i < hooks.length; i++) {
    const result = hooks[i]!.before(ctx)
    if (result instanceof Promise) return result.then((decision) => (decision.kind === 'continue' ? runHooks(ctx, hooks, i + 1) : decision))
    if (result.kind !== 'continue') return result
  }
  return undefined
}

/**
 * The response a hook's decision ends the request with: a `respond` as it is (its error becomes the request's), an
 * `answer` through the `onResponse` hooks, as the route stage's answer would go.
 */
function endWith(ctx: RequestContext, pipeline: BuiltPipeline, decision: Ending): Response | Promise<Response> {
  if (decision.kind === 'answer') return answered(ctx, pipeline, decision.response)
  if (decision.error) ctx.error = decision.error
  return decision.response
}

/** The answer (the route stage's, or a hook's in its place), kept when a plugin captures it, through the onResponse hooks. */
async function answered(ctx: RequestContext, pipeline: BuiltPipeline, answer: Response): Promise<Response> {
  return throughOnResponse(ctx, pipeline, ctx.capture.routeAnswer ? await keepRouteAnswer(ctx, answer) : answer)
}

/**
 * Hands the answer to each `onResponse` hook in turn; one that answers with an error makes it the request's. As
 * with `runHooks`, a promise only from the first hook that returns one.
 */
function throughOnResponse(ctx: RequestContext, pipeline: BuiltPipeline, answer: Response, from = 0): Response | Promise<Response> {
  const hooks = pipeline.onResponse
  let response = answer
  for (let i = from; i < hooks.length; i++) {
    const wrapped = hooks[i]!(ctx, response)
    if (wrapped instanceof Promise) return wrapped.then((next) => (next instanceof GatewayError ? failWith(ctx, next) : throughOnResponse(ctx, pipeline, next, i + 1)))
    if (wrapped instanceof GatewayError) return failWith(ctx, wrapped)
    response = wrapped
  }
  return response
}

function failWith(ctx: RequestContext, error: GatewayError): Response {
  ctx.error = error
  return errorResponse(error)
}

/** Hands the response to the client and schedules completion; streams go through the pump. */
async function deliver(ctx: RequestContext, pipeline: BuiltPipeline, response: Response, options: RunOptions): Promise<Response> {
  // A marked answer (json-answer.ts) is a Response made for this request alone: its headers are ours to complete and
  // it goes out as it is, unless its body is replaced below. Any other Response is copied.
  const known = answerText(response)
  const headers = known === undefined ? new Headers(response.headers) : response.headers
  headers.set('x-request-id', ctx.requestId)
  const { telemetry } = options
  const isStream = isEventStream(headers)
  const row = endpoint(ctx.endpoint)
  if (row.verbatim && response.body) return deliverVerbatim(ctx, pipeline, response, headers, telemetry, isStream)
  if (isStream && response.body) {
    telemetry?.headersReady(ctx, headers, true)
    return new Response(pumpStream(ctx, pipeline, response, headers, options), { status: response.status, headers })
  }
  // Checked before `response.body`, which would make a stream of a marked answer's text.
  if (answersInBytes(row, response.status, headers) && response.body) {
    telemetry?.headersReady(ctx, headers, false)
    return new Response(pumpBytes(ctx, pipeline, response, headers, telemetry), { status: response.status, headers })
  }

  let text = ''
  let status = response.status
  // Parsed already when the text is the upstream answer as it came (see json-answer.ts); unset once it is replaced.
  let parsedText = parsedAnswer(response)
  try {
    // A marked answer's text is at hand: no read through its body stream (and no await) on the common path.
    text = known ?? (response.body ? await response.text() : '')
  } catch (error) {
    parsedText = undefined
    const failure = toGatewayError(error)
    ctx.error = failure
    status = failure.status
    text = JSON.stringify(failure.toJSON())
    headers.set('content-type', 'application/json')
  }
  // Every error body is shaped here, once, in the endpoint's API (Anthropic clients expect their own).
  const { api } = row
  const errorBody = status >= 400 && ctx.error ? api.errorBody?.(ctx.error) : undefined
  if (errorBody !== undefined) {
    text = JSON.stringify(errorBody)
    parsedText = undefined
  }
  telemetry?.headersReady(ctx, headers, false)
  const outcome = baseOutcome(ctx, status, headers)
  outcome.bytesOut = Buffer.byteLength(text)
  outcome.ttfbMs = ctx.elapsedNs() / 1e6
  // The answer is parsed only for plugins that asked (bodies for audit or cache, usage for metering and limits).
  const capture = ctx.capture
  if (capture.responseBody || (capture.usage && status < 300)) {
    const parsed = parsedText ?? parseJsonOrUndefined(text)
    if (capture.responseBody) {
      if (parsed === undefined) outcome.responseText = text
      else {
        outcome.responseBody = parsed
        outcome.responseJsonText = text
      }
    }
    if (status < 300 && parsed && typeof parsed === 'object')
      outcome.usage = api.usage?.read((parsed as Record<string, unknown>).usage, ctx.body, parsed as Record<string, unknown>)
    // A plain-text answer (a transcript as text, srt, vtt: fetchUpstream's `textAnswer`) may say its usage in its text.
    else if (status < 300 && parsed === undefined && isTextAnswer(headers)) outcome.usage = api.usage?.read(undefined, ctx.body, text)
  }
  // Completion waits only for a token count (then a promise); otherwise it is done, with no await.
  const completing = complete(ctx, pipeline, outcome, telemetry, false)
  if (completing) await completing
  return text === known && status === response.status ? response : new Response(text, { status, headers })
}

/** A verbatim row's answer: its bytes as they are (src/pipeline/verbatim.ts); completion once they ended. */
async function deliverVerbatim(
  ctx: RequestContext,
  pipeline: BuiltPipeline,
  response: Response,
  headers: Headers,
  telemetry: RequestTelemetry | undefined,
  isStream: boolean,
): Promise<Response> {
  telemetry?.headersReady(ctx, headers, isStream)
  const outcome = baseOutcome(ctx, response.status, headers)
  // The provider's own refusal, passed through as it came, is still the request's error in the audit entry.
  if (!outcome.error && response.status >= 400) outcome.error = gatewayErrors.passedThrough(response.status, ctx.target?.providerName ?? '')
  const body = await verbatimBody(ctx, response, (end) => {
    Object.assign(outcome, end, { error: end.error ?? outcome.error })
    if (outcome.error) ctx.error = outcome.error
    complete(ctx, pipeline, outcome, telemetry, isStream)?.catch((err) => ctx.log.error({ err }, 'completing the request failed'))
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}

function pumpStream(ctx: RequestContext, pipeline: BuiltPipeline, response: Response, headers: Headers, { keepaliveMs, telemetry }: RunOptions): ReadableStream<Uint8Array> {
  const reader = response.body!.getReader()
  const { api } = endpoint(ctx.endpoint)
  // An API that never streams got a stream anyway: its bytes pass, and a failure ends it with a plain `data:` error.
  const codec = api.streamCodec ?? opaqueStreamCodec
  const capture = ctx.capture
  const fold: StreamFold | undefined = capture.responseBody || capture.usage || codec.foldAlways ? codec.createFold(!capture.responseBody) : undefined
  const parser = fold ? new SseParser(fold.only) : undefined
  const filter = ctx.streamFilter
  const outcome = baseOutcome(ctx, response.status, headers)
  let ended = false
  // The gateway's own frames (keep-alives, the error frame) may only go between two upstream events: upstream
  // reads can end in the middle of one, and a frame dropped into it corrupts both.
  let betweenEvents = true
  // Keep-alives: one timer per stream, not one per read (a timer and a promise race per chunk cost more than the
  // rest of the pump). Reads only note the time; the timer sends a comment once the stream has been quiet for
  // `keepaliveMs` while waiting for the upstream between two events.
  let waiting = false
  let lastActivity = performance.now()
  let keepalive: ReturnType<typeof setTimeout> | undefined
  const armKeepalive = (controller: ReadableStreamDefaultController<Uint8Array>, delayMs: number) => {
    keepalive = setTimeout(() => {
      if (ended) return
      const quiet = performance.now() - lastActivity
      if (quiet < keepaliveMs) return armKeepalive(controller, keepaliveMs - quiet)
      if (waiting && betweenEvents) {
        controller.enqueue(KEEPALIVE_FRAME)
        lastActivity = performance.now()
      }
      armKeepalive(controller, keepaliveMs)
    }, delayMs)
    keepalive.unref?.()
  }

  const end = (extra: Partial<Outcome>) => {
    if (ended) return
    ended = true
    clearTimeout(keepalive)
    if (parser && fold) for (const event of parser.end()) fold.add(event)
    Object.assign(outcome, extra)
    if (fold) {
      if (capture.responseBody) outcome.responseBody = fold.result()
      outcome.usage ??= api.usage?.read(fold.usage(), ctx.body)
      const streamError = fold.error()
      if (streamError && !outcome.error) outcome.error = errorFromStream(streamError, ctx)
    }
    if (outcome.error) ctx.error = outcome.error
    complete(ctx, pipeline, outcome, telemetry, true)?.catch((err) => ctx.log.error({ err }, 'completing the request failed'))
  }

  const forward = (controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array) => {
    if (outcome.ttfbMs === undefined) outcome.ttfbMs = ctx.elapsedNs() / 1e6
    outcome.bytesOut += chunk.byteLength
    if (parser && fold) for (const event of parser.push(chunk)) fold.add(event)
    controller.enqueue(chunk)
    betweenEvents = endsEvent(chunk)
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      armKeepalive(controller, keepaliveMs)
    },
    async pull(controller) {
      try {
        let chunk: Uint8Array | undefined
        // A pull that enqueues nothing is not called again: read on while the filter holds everything back.
        do {
          waiting = true
          const result = await reader.read()
          waiting = false
          lastActivity = performance.now()
          if (result.done) {
            const rest = filter?.end()
            if (rest && rest.byteLength > 0) forward(controller, rest)
            controller.close()
            end({})
            return
          }
          chunk = filter ? filter.push(result.value) : result.value
        } while (!chunk || chunk.byteLength === 0)
        const refused = ctx.streamStillAllowed?.()
        if (refused) {
          reader.cancel(refused).catch(() => {})
          throw refused
        }
        forward(controller, chunk)
      } catch (error) {
        const failure = toGatewayError(error)
        // Ends the line in progress, so the error frame's own lines are read as lines of their own.
        if (!betweenEvents) controller.enqueue(NEWLINE)
        controller.enqueue(codec.errorFrame(failure, fold))
        controller.close()
        end({ error: failure })
      }
    },
    cancel(reason) {
      end({ clientAborted: true })
      return reader.cancel(reason).catch(() => {})
    },
  })
}

const NEWLINE = new Uint8Array([10])

function isTextAnswer(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').trimStart().toLowerCase().startsWith('text/')
}

/** A successful answer of a row that answers in bytes (audio), which is not JSON: passed on unread. */
function answersInBytes(row: Endpoint, status: number, headers: Headers): boolean {
  return row.answers.includes('binary') && status < 300 && !(headers.get('content-type') ?? '').includes('json')
}

/** A binary answer to the client as it arrives (./byte-pump.ts); completion once its body ended. */
function pumpBytes(ctx: RequestContext, pipeline: BuiltPipeline, response: Response, headers: Headers, telemetry: RequestTelemetry | undefined): ReadableStream<Uint8Array> {
  const outcome = baseOutcome(ctx, response.status, headers)
  outcome.answeredInBytes = true
  // Hashed on the way when bodies are logged: the audit entry says what the audio was, never holds it.
  const hash = ctx.capture.responseBody ? new Bun.CryptoHasher('sha256') : undefined
  // A live request's answer goes to the HTTP server (deliver → Elysia → Bun), which is done with a chunk once it asks
  // for the next; a batch line's answer is read whole in-process by its runner (src/batches/line-runner.ts).
  return passBytes(
    response.body!,
    {
      chunk(bytes) {
        outcome.ttfbMs ??= ctx.elapsedNs() / 1e6
        outcome.bytesOut += bytes.byteLength
        hash?.update(bytes)
      },
      ended({ error, clientAborted }) {
        if (hash) outcome.responseBinary = { content_type: headers.get('content-type') ?? '', bytes: outcome.bytesOut, sha256: hash.digest('hex') }
        if (error) outcome.error = ctx.error = error
        outcome.clientAborted = clientAborted === true
        complete(ctx, pipeline, outcome, telemetry, false)?.catch((err) => ctx.log.error({ err }, 'completing the request failed'))
      },
    },
    { freeSpentChunks: ctx.batchLine === undefined },
  )
}

function baseOutcome(ctx: RequestContext, status: number, headers: Headers): Outcome {
  return { status, error: ctx.error, clientAborted: false, bytesOut: 0, responseHeaders: headers, durationNs: 0 }
}

/** Completions waiting for a token count; shutdown waits for them so that their audit entries reach the queue. */
const countingCompletions = new Set<Promise<void>>()

/** Resolves once every completion that was waiting for a token count has handed its outcome on. */
export async function completionsSettled(): Promise<void> {
  while (countingCompletions.size > 0) await Promise.allSettled([...countingCompletions])
}

function complete(ctx: RequestContext, pipeline: BuiltPipeline, outcome: Outcome, telemetry: RequestTelemetry | undefined, wasStream: boolean): Promise<void> | undefined {
  outcome.durationNs = ctx.elapsedNs()
  if (ctx.capture.usage) outcome.usage ??= ctx.hiddenStreamUsage
  if (outcome.usage && !outcome.usage.estimated && isUsageCounted(ctx)) outcome.usage = { ...outcome.usage, estimated: true }
  if (ctx.capture.routeAnswer) outcome.routeAnswer = routeAnswerOf(ctx)
  if (ctx.capture.pricedUsage && needsEstimatedUsage(ctx, outcome)) {
    // Counted on the tokenizer thread: this request's record waits for the count, no other request does.
    const completing = estimateUsage(ctx, outcome).then((estimated) => {
      outcome.usageRecord = meterUsage(ctx, outcome, pipeline.prices, estimated)
      finish(ctx, pipeline, outcome, telemetry, wasStream)
    })
    countingCompletions.add(completing)
    return completing.finally(() => countingCompletions.delete(completing))
  }
  if (ctx.capture.pricedUsage) outcome.usageRecord = meterUsage(ctx, outcome, pipeline.prices)
  finish(ctx, pipeline, outcome, telemetry, wasStream)
  return undefined
}

/** Hands the finished request to every `onComplete` hook and to telemetry. */
function finish(ctx: RequestContext, pipeline: BuiltPipeline, outcome: Outcome, telemetry: RequestTelemetry | undefined, wasStream: boolean): void {
  for (const { pluginId, hook } of pipeline.onComplete) {
    try {
      const result = hook(ctx, outcome)
      if (result instanceof Promise) result.catch((err) => ctx.log.error({ err, plugin: pluginId }, 'onComplete failed'))
    } catch (err) {
      ctx.log.error({ err, plugin: pluginId }, 'onComplete failed')
    }
  }
  try {
    telemetry?.complete(ctx, outcome, wasStream)
  } catch (err) {
    ctx.log.error({ err }, 'request telemetry failed')
  }
  ctx.batchLine?.finished(outcome)
}

function errorFromStream(raw: unknown, ctx: RequestContext): GatewayError {
  const e = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  return new GatewayError({
    status: 502,
    type: 'provider_error',
    message: typeof e.message === 'string' ? e.message : 'The upstream reported an error inside the stream.',
    code: typeof e.code === 'string' ? e.code : 'stream_error',
    provider: ctx.target?.providerName ?? '',
  })
}
