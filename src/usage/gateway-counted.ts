/**
 * @module Usage an adapter had to count itself because the upstream reports none (Gemini's embeddings): the answer
 * carries the count, as the API's shape requires, and the request's usage is marked estimated, like any usage the
 * gateway counts (src/pipeline/run.ts applies the mark at completion).
 */
import { type RequestContext, requestSlot } from '../pipeline/context.ts'

const countedSlot = requestSlot<true>('gateway-counted-usage')

/** The answer's usage is the gateway's count, not the provider's. */
export function markUsageCounted(ctx: RequestContext): void {
  ctx.setState(countedSlot, true)
}

export function isUsageCounted(ctx: RequestContext): boolean {
  return ctx.state(countedSlot) === true
}
