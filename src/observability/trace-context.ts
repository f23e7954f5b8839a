/**
 * @module The span of each traced request in flight, in the request's own slot. Upstream calls find their parent
 * here, so the code that makes them (src/providers/upstream-fetch.ts) needs no tracing object handed through the
 * adapters, and loads no OpenTelemetry SDK code. With tracing off the slot stays empty: one array read per attempt.
 */
import type { Context, Span } from '@opentelemetry/api'
import { type RequestContext, requestSlot } from '../pipeline/context.ts'
import type { AttemptSnapshot } from '../pipeline/snapshots.ts'

export interface TracedRequest {
  span: Span
  /** The context upstream attempt spans are children of. */
  context: Context
  startAttempt(request: TracedRequest, ctx: RequestContext, attempt: AttemptSnapshot, headers: Record<string, string>): () => void
}

export const tracedRequest = requestSlot<TracedRequest>('tracing')

/**
 * Starts the span of one upstream call when the request is traced and writes its `traceparent` into the
 * outgoing headers; returns the function that ends the span, or undefined when the request is not traced.
 */
export function traceUpstreamAttempt(ctx: RequestContext, attempt: AttemptSnapshot, headers: Record<string, string>): (() => void) | undefined {
  const request = ctx.state(tracedRequest)
  return request?.startAttempt(request, ctx, attempt, headers)
}
