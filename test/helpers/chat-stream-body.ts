/**
 * @module A chat chunk stream as an upstream sends it, for the tests of what translates one (the ingress
 * protocols' stream writers): chunks, `data:` frames, and the body delivered in pieces, optionally breaking off.
 */
type Json = Record<string, unknown>
const encoder = new TextEncoder()

/** One `chat.completion.chunk` with one choice. */
export const chatChunk = (delta: Json, finish: string | null = null, extra: Json = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
})

/** A `data:` frame; a string (such as `[DONE]`) goes as it is. */
export const dataFrameText = (payload: unknown) => `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`

/** A chat SSE body from frames, delivered `pieceSize` bytes at a time (cutting through lines and characters). */
export function chatSseBody(frames: string[], opts: { pieceSize?: number; failWith?: Error } = {}): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(frames.join(''))
  const size = opts.pieceSize ?? bytes.length
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return opts.failWith ? controller.error(opts.failWith) : controller.close()
      controller.enqueue(bytes.slice(offset, offset + size))
      offset += size
    },
  })
}
