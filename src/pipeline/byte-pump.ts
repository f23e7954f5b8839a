/**
 * @module A binary answer (audio) handed to the client as it arrives: nothing is parsed or kept, the bytes are
 * counted, and `ended` is told exactly once how the body ended (read to its end, cancelled by the client, or broken
 * off by the upstream, when the client's stream errors too: a binary body has no error frame).
 */
import { toGatewayError, type GatewayError } from '../errors/gateway-error.ts'
import { SpentChunks } from '../http/release-bytes.ts'

export interface ByteFlow {
  /** A chunk is about to go to the client. */
  chunk(bytes: Uint8Array): void
  /** Once: `error` when the upstream broke off, `clientAborted` when the client went away. */
  ended(how: { error?: GatewayError; clientAborted?: boolean }): void
}

/**
 * `freeSpentChunks`: for a consumer that is done with a chunk when it asks for the next one (Bun's HTTP server,
 * which copies what it cannot write at once), each chunk is freed then (src/http/release-bytes.ts), so a long answer
 * does not pile up spent chunks until the collector runs. A consumer that collects the chunks (`arrayBuffer()`,
 * `tee()`) must not ask for it: it would find them emptied.
 */
export function passBytes(body: ReadableStream<Uint8Array>, flow: ByteFlow, { freeSpentChunks = false } = {}): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const spent = freeSpentChunks ? new SpentChunks() : undefined
  let done = false
  const end = (how: { error?: GatewayError; clientAborted?: boolean }) => {
    if (done) return
    done = true
    flow.ended(how)
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A high-water mark of 0: asked only when the consumer reads, so it is done with the chunk it was given.
        spent?.release()
        try {
          const result = await reader.read()
          if (result.done) {
            controller.close()
            end({})
            return
          }
          flow.chunk(result.value)
          controller.enqueue(result.value)
          spent?.add(result.value)
        } catch (error) {
          const failure = toGatewayError(error)
          controller.error(failure)
          end({ error: failure })
        }
      },
      cancel(reason) {
        end({ clientAborted: true })
        return reader.cancel(reason).catch(() => {})
      },
    },
    { highWaterMark: freeSpentChunks ? 0 : 1 },
  )
}
