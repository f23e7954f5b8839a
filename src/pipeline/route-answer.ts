/**
 * @module The answer as it enters the `onResponse` hooks (the route stage's as the upstream gave it, or a `before`
 * hook's `answer` in its place), before any of them changed it, for pipelines whose plugins capture it
 * (`captures.routeAnswer`): a cache keeps this, not what the hooks made of it, because a
 * hit goes through the same hooks again (an output guardrail must see a cached answer as it saw the upstream's,
 * and an unwrapping or masking hook must not apply twice). A JSON answer is at hand (json-answer.ts) or read once
 * and marked; a stream is folded as it passes, through a stage of its own, which only those pipelines pay for.
 */
import type { RequestContext } from './context.ts'
import { requestSlot } from './context.ts'
import { jsonAnswer, parseJsonOrUndefined, parsedAnswer } from './json-answer.ts'
import { isEventStream, SseParser } from './sse.ts'
import type { StreamFold } from './stream-codecs.ts'
import { endpoint } from '../protocols/endpoints.ts'

/** Filled when the answer is known: at once for JSON, when the stream ended for a stream. */
interface KeptAnswer {
  value?: unknown
}

const routeAnswerSlot = requestSlot<KeptAnswer>('route-answer')

/** Keeps the answer for `routeAnswerOf`; returns the response to hand on (the same one, or one reading the same body). */
export async function keepRouteAnswer(ctx: RequestContext, response: Response): Promise<Response> {
  const kept: KeptAnswer = {}
  ctx.setState(routeAnswerSlot, kept)
  const init = { status: response.status, statusText: response.statusText, headers: response.headers }
  if (isEventStream(response)) {
    if (!response.body) return response
    const codec = endpoint(ctx.endpoint).api.streamCodec
    // An API that never streams has no fold for one: the stream passes, nothing is kept.
    if (!codec) return response
    const fold = codec.createFold()
    return new Response(
      foldedAsItPasses(response.body, fold, () => {
        if (!fold.error()) kept.value = fold.result()
      }),
      init,
    )
  }
  const parsed = parsedAnswer(response)
  if (parsed !== undefined) {
    kept.value = parsed
    return response
  }
  const text = await response.text()
  kept.value = parseJsonOrUndefined(text)
  return kept.value === undefined ? new Response(text, init) : jsonAnswer(text, kept.value, init)
}

/** The kept answer; undefined when none was kept or a stream did not end whole. */
export function routeAnswerOf(ctx: RequestContext): unknown {
  return ctx.state(routeAnswerSlot)?.value
}

/** The same bytes, each event also added to `fold`; `ended` once the source ended normally. */
function foldedAsItPasses(body: ReadableStream<Uint8Array>, fold: StreamFold, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const parser = new SseParser(fold.only)
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) {
        for (const event of parser.end()) fold.add(event)
        ended()
        controller.close()
        return
      }
      for (const event of parser.push(value)) fold.add(event)
      controller.enqueue(value)
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}
