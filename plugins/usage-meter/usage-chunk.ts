/**
 * @module The gateway asks streaming upstreams for usage; a client that did not ask must not see the extra
 * `choices: []` usage chunk (clients index `choices[0]`), so it is removed from what the client receives.
 */
import { SseParser } from '../../src/pipeline/sse.ts'

const encoder = new TextEncoder()

export function withoutUsageChunk(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const parser = new SseParser()
  const forward = (events: ReturnType<SseParser['push']>, controller: TransformStreamDefaultController<Uint8Array>) => {
    for (const event of events) {
      if (event.data.includes('"usage"') && event.data.includes('"choices":[]')) continue
      controller.enqueue(encoder.encode(`data: ${event.data}\n\n`))
    }
  }
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, controller) => forward(parser.push(chunk), controller),
      flush: (controller) => forward(parser.end(), controller),
    }),
  )
}
