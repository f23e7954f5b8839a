/**
 * @module The gateway asks streaming upstreams for usage; a client that did not ask must not see the extra
 * `choices: []` usage chunk (clients index `choices[0]`), so it is removed from what the client receives, and its
 * usage is handed to the meter instead.
 *
 * Works on bytes, as the stream pump's filter (no stream stage of its own): a read that holds no usage chunk is
 * forwarded as it arrived (no decoding, no re-framing, no copy), which is every read but one in a stream. Only an event not yet ended by its read is held back until it
 * ends, and at most USAGE_EVENT_MAX_BYTES of it: a longer event cannot be a usage chunk and is forwarded as it comes.
 */
import { eventPayload, type StreamFilter } from '../../src/pipeline/sse.ts'

const MARK = Buffer.from('"choices":[]')
/** Usage chunks are a few hundred bytes; anything held back longer than this is some other event. */
const USAGE_EVENT_MAX_BYTES = 16 * 1024
const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The usage-chunk removal as the pump's stream filter (`ctx.streamFilter`, src/pipeline/sse.ts). */
export class UsageChunkFilter implements StreamFilter {
  /** The start of an event the last read did not end. */
  private held: Uint8Array | undefined
  /** Inside an event already known not to be a usage chunk: bytes pass until it ends. */
  private passing = false

  constructor(private readonly onUsage: (usage: unknown) => void = () => {}) {}

  /** What of `bytes` (held bytes first) can go to the client now. */
  push(bytes: Uint8Array): Uint8Array | undefined {
    let data = this.held ? Buffer.concat([this.held, bytes]) : bytes
    this.held = undefined
    let cut = lastEventEnd(data)
    if (this.passing) {
      // Until the big event ends, everything passes; what follows its end is filtered as usual.
      if (cut === 0) return data
      const first = firstEventEnd(data)
      this.passing = false
      const rest = this.push(data.subarray(first))
      return rest ? Buffer.concat([data.subarray(0, first), rest]) : data.subarray(0, first)
    }
    if (cut < data.length) {
      if (data.length - cut > USAGE_EVENT_MAX_BYTES) {
        this.passing = true
        cut = data.length
      } else this.held = data.subarray(cut)
      data = data.subarray(0, cut)
    }
    if (data.length === 0) return undefined
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(MARK) < 0 ? data : dropUsageEvents(data, this.onUsage)
  }

  end(): Uint8Array | undefined {
    const held = this.held
    this.held = undefined
    return held ? dropUsageEvents(held, this.onUsage) : undefined
  }
}

/** Removes the usage-only events from complete events; their usage goes to `onUsage`. */
function dropUsageEvents(bytes: Uint8Array, onUsage: (usage: unknown) => void): Uint8Array {
  const parts = decoder.decode(bytes).split(/(\r\n\r\n|\n\n|\r\r)/)
  let kept = ''
  for (let i = 0; i < parts.length; i += 2) {
    const event = parts[i]!
    const separator = parts[i + 1] ?? ''
    if (event.includes('"usage"') && event.includes('"choices":[]')) {
      const data = event
        .split(/\r\n|\n|\r/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.charCodeAt(5) === 32 ? 6 : 5))
        .join('\n')
      const payload = eventPayload({ data })
      if (payload?.usage !== undefined) {
        onUsage(payload.usage)
        continue
      }
    }
    kept += event + separator
  }
  return encoder.encode(kept)
}

/** Index just past the last blank line (`\n\n`, `\r\n\r\n`, `\r\r`) in `b`; 0 when there is none. */
function lastEventEnd(b: Uint8Array): number {
  for (let i = b.length - 1; i > 0; i--) {
    const c = b[i]
    if (c === 10 && (b[i - 1] === 10 || (b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13))) return i + 1
    if (c === 13 && b[i - 1] === 13) return i + 1
  }
  return 0
}

/** Index just past the first blank line in `b`; 0 when there is none. */
function firstEventEnd(b: Uint8Array): number {
  for (let i = 1; i < b.length; i++) {
    const c = b[i]
    if (c === 10 && (b[i - 1] === 10 || (b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13))) return i + 1
    if (c === 13 && b[i - 1] === 13) return i + 1
  }
  return 0
}
