/**
 * @module A binary answer (audio) handed to the client as it arrives: nothing is parsed or kept, the bytes are
 * counted, and `ended` is told exactly once how the body ended (read to its end, cancelled by the client, or broken
 * off by the upstream, when the client's stream errors too: a binary body has no error frame).
 */
import { toGatewayError, type GatewayError } from '../errors/gateway-error.ts'

export interface ByteFlow {
  /** A chunk is about to go to the client. */
  chunk(bytes: Uint8Array): void
  /** Once: `error` when the upstream broke off, `clientAborted` when the client went away. */
  ended(how: { error?: GatewayError; clientAborted?: boolean }): void
}

export function passBytes(body: ReadableStream<Uint8Array>, flow: ByteFlow): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let done = false
  const end = (how: { error?: GatewayError; clientAborted?: boolean }) => {
    if (done) return
    done = true
    flow.ended(how)
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const result = await reader.read()
        if (result.done) {
          controller.close()
          end({})
          return
        }
        flow.chunk(result.value)
        controller.enqueue(result.value)
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
  })
}
