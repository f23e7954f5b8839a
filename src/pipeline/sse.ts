/**
 * @module Incremental Server-Sent Events parsing and framing. One decoder per stream in `stream` mode, so a
 * UTF-8 character split across network reads is decoded whole; `\n`, `\r\n` and `\r` line ends all work.
 */

/** Whether a response (or its headers) is a Server-Sent Events stream. */
export function isEventStream(message: { headers: Headers } | Headers): boolean {
  const headers = message instanceof Headers ? message : message.headers
  return (headers.get('content-type') ?? '').startsWith('text/event-stream')
}

/**
 * A change to a stream's bytes that the pump (src/pipeline/run.ts) makes as it reads them, set by a plugin on the
 * request (`ctx.streamFilter`) instead of a ReadableStream stage of its own around the body: each stage holds a
 * reader, a controller, a queue and a pending read per open stream and makes promises per chunk (one stage, the
 * usage meter's, cost about 15 MiB of peak RSS and 5 % of the CPU per stream with 1,000 paced streams; see
 * docs/workers.md).
 */
export interface StreamFilter {
  /** What of `chunk` goes to the client now; undefined or empty: nothing yet. */
  push(chunk: Uint8Array): Uint8Array | undefined
  /** What is left to send once the source ended. */
  end(): Uint8Array | undefined
}

export interface SseEvent {
  event?: string
  data: string
}

export class SseParser {
  private readonly decoder = new TextDecoder()
  private buffer = ''
  private dataLines: string[] = []
  private eventName: string | undefined
  private lastWasCr = false
  private readonly only: Buffer[] | undefined
  /** The bytes fed so far ended with a whole event: nothing is buffered. */
  private atEventEnd = true

  /**
   * `only`: the caller ignores events that contain none of these strings (e.g. `"usage"`), so a read of whole
   * events without any of them is skipped unread: no decoding, no lines, no strings.
   */
  constructor(only?: readonly string[]) {
    this.only = only?.map((marker) => Buffer.from(marker))
  }

  /** Feeds raw bytes; returns the events completed by them (or none of the events `only` would keep). */
  push(chunk: Uint8Array): SseEvent[] {
    const wholeEvents = endsEvent(chunk)
    if (this.only && this.atEventEnd && wholeEvents && !containsAny(chunk, this.only)) {
      this.lastWasCr = chunk[chunk.length - 1] === 13
      return []
    }
    this.atEventEnd = wholeEvents
    return this.pushText(this.decoder.decode(chunk, { stream: true }))
  }

  /** Flushes what is left at the end of the stream. */
  end(): SseEvent[] {
    const events = this.pushText(this.decoder.decode() + '\n\n')
    return events
  }

  private pushText(text: string): SseEvent[] {
    const events: SseEvent[] = []
    let input = text
    if (this.lastWasCr && input.startsWith('\n')) input = input.slice(1)
    this.lastWasCr = false
    this.buffer += input
    let start = 0
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer.charCodeAt(i)
      if (ch !== 10 && ch !== 13) continue
      const line = this.buffer.slice(start, i)
      if (ch === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++
        } else this.lastWasCr = true
      }
      start = i + 1
      const event = this.line(line)
      if (event) events.push(event)
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.dataLines.length === 0) {
        this.eventName = undefined
        return undefined
      }
      const event: SseEvent = { event: this.eventName, data: this.dataLines.join('\n') }
      this.dataLines = []
      this.eventName = undefined
      return event
    }
    if (line.charCodeAt(0) === 58) return undefined // ':' comment, e.g. keep-alives
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') this.dataLines.push(value)
    else if (field === 'event') this.eventName = value
    return undefined
  }
}

/** Whether a chunk ends with a blank line (`\n\n`, `\r\n\r\n` or `\r\r`), i.e. between two SSE events. */
export function endsEvent(chunk: Uint8Array): boolean {
  const n = chunk.length
  if (chunk[n - 1] === 13) return chunk[n - 2] === 13
  return chunk[n - 1] === 10 && (chunk[n - 2] === 10 || (chunk[n - 2] === 13 && chunk[n - 3] === 10))
}

function containsAny(chunk: Uint8Array, markers: readonly Buffer[]): boolean {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  for (const marker of markers) if (bytes.indexOf(marker) >= 0) return true
  return false
}

/** An event's data as a JSON object; undefined for anything else (`[DONE]`, a torn or foreign payload). */
export function eventPayload(event: SseEvent): Record<string, unknown> | undefined {
  try {
    const payload: unknown = JSON.parse(event.data)
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const encoder = new TextEncoder()

/** `data: <json>\n\n`, the only framing chat-completion clients accept. */
export function dataFrame(payload: unknown): Uint8Array {
  return encoder.encode(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`)
}

/** `event: <name>\ndata: <json>\n\n`, as the Responses and Anthropic Messages streams frame events. */
export function namedEventFrame(name: string, payload: unknown): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`)
}

export const KEEPALIVE_FRAME = encoder.encode(': keep-alive\n\n')
export const DONE_FRAME = encoder.encode('data: [DONE]\n\n')
