/**
 * @module AWS's binary event stream (`application/vnd.amazon.eventstream`: each message a length-prefixed frame with
 * typed headers, a payload and CRC32 checksums over prelude and message) split into messages as the bytes arrive and
 * decoded with the maintained codec (`@smithy/core/event-streams`, which checks both checksums). The parser has the
 * shape of the SSE parser, so the one stream-translation pump drives both (src/protocols/stream-translation.ts);
 * the Bedrock adapter translates with it, the pass-through reads usage with it.
 */
import type { EventStreamCodec } from '@smithy/core/event-streams'

/** One decoded message: `event` (a payload for `eventType`), `exception` or `error`. */
export interface AwsStreamMessage {
  messageType: string
  /** `:event-type` of an event, `:exception-type` of an exception, `:error-code` of an error. */
  type: string
  payload: Record<string, unknown> | undefined
  /** `:error-message` of an error message. */
  errorMessage?: string
}

/** The longest message AWS sends on an event stream is 16 MiB; a larger length is a corrupt frame. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024
const PRELUDE_BYTES = 12

let codecModule: Promise<typeof import('@smithy/core/event-streams')> | undefined
let utf8Module: Promise<typeof import('@smithy/core/serde')> | undefined

/** The codec, loaded with the first Bedrock stream. */
export async function loadEventStreamCodec(): Promise<EventStreamCodec> {
  codecModule ??= import('@smithy/core/event-streams')
  utf8Module ??= import('@smithy/core/serde')
  const [{ EventStreamCodec }, { toUtf8, fromUtf8 }] = await Promise.all([codecModule, utf8Module])
  return new EventStreamCodec(toUtf8, fromUtf8)
}

export class AwsEventStreamParser {
  private buffer: Uint8Array = new Uint8Array(0)
  private readonly text = new TextDecoder()

  constructor(private readonly codec: EventStreamCodec) {}

  /** The whole messages the bytes so far complete; throws on a corrupt frame (a checksum or length that is wrong). */
  push(chunk: Uint8Array): AwsStreamMessage[] {
    this.buffer = this.buffer.byteLength === 0 ? chunk : concat(this.buffer, chunk)
    const messages: AwsStreamMessage[] = []
    while (this.buffer.byteLength >= PRELUDE_BYTES) {
      const length = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0, false)
      if (length < 16 || length > MAX_MESSAGE_BYTES) throw new Error(`an event stream message declares ${length} bytes`)
      if (this.buffer.byteLength < length) break
      messages.push(this.decode(this.buffer.subarray(0, length)))
      this.buffer = this.buffer.subarray(length)
    }
    return messages
  }

  /** The stream ended: bytes left over are half a message. */
  end(): AwsStreamMessage[] {
    if (this.buffer.byteLength > 0) throw new Error('the event stream ended in the middle of a message')
    return []
  }

  private decode(frame: Uint8Array): AwsStreamMessage {
    const { headers, body } = this.codec.decode(frame)
    const header = (name: string) => {
      const h = headers[name]
      return h && h.type === 'string' ? h.value : undefined
    }
    const messageType = header(':message-type') ?? 'event'
    const type = (messageType === 'event' ? header(':event-type') : messageType === 'exception' ? header(':exception-type') : header(':error-code')) ?? ''
    let payload: Record<string, unknown> | undefined
    if (body.byteLength > 0) {
      try {
        const value: unknown = JSON.parse(this.text.decode(body))
        if (typeof value === 'object' && value !== null) payload = value as Record<string, unknown>
      } catch {
        payload = undefined
      }
    }
    return { messageType, type, payload, errorMessage: header(':error-message') }
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength)
  out.set(a, 0)
  out.set(b, a.byteLength)
  return out
}
