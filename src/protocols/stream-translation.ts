/**
 * @module One SSE stream translated into another, event by event: the one pump behind the ingress protocols
 * (chat chunks → Responses or Messages events) and the provider adapters (Anthropic or Gemini events → chat
 * chunks). It reads the source only as fast as the client pulls, stops reading once the translation is complete
 * (and cancels the rest), and lets the translator say how a stream that stopped short or broke off ends.
 */
import { GatewayError, toGatewayError } from '../errors/gateway-error.ts'
import { dataFrame, SseParser, type SseEvent } from '../pipeline/sse.ts'

/** Splits a source's bytes into events: SSE by default, AWS's binary event stream for Bedrock. */
export interface EventParser<Event> {
  push(chunk: Uint8Array): Event[]
  end(): Event[]
}

export interface EventStreamTranslator<Event = SseEvent> {
  /** True once the translated stream is complete: nothing more is read from the source. */
  readonly done: boolean
  /** Frames that go out before the source says anything (e.g. `message_start`). */
  start?(): Uint8Array[]
  /** Frames for one source event. */
  translate(event: Event): Uint8Array[]
  /** Frames once the source closed before the translation was complete (an error frame, or the orderly end). */
  end(): Uint8Array[]
  /** Frames for a source that broke off with this error; without it, the error breaks the translated stream too. */
  fail?(error: unknown): Uint8Array[]
}

export function translateEventStream<Event = SseEvent>(
  source: ReadableStream<Uint8Array>,
  translator: EventStreamTranslator<Event>,
  parser: EventParser<Event> = new SseParser() as unknown as EventParser<Event>,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of translator.start?.() ?? []) controller.enqueue(frame)
    },
    // A pull that enqueues nothing is not called again, so read until a frame went out or the stream ended.
    async pull(controller) {
      const frames: Uint8Array[] = []
      let sourceEnded = false
      try {
        while (frames.length === 0 && !translator.done) {
          const { done, value } = await reader.read()
          for (const event of done ? parser.end() : parser.push(value)) {
            frames.push(...translator.translate(event))
            if (translator.done) break
          }
          if (done) {
            sourceEnded = true
            if (!translator.done) frames.push(...translator.end())
            break
          }
        }
      } catch (error) {
        if (!translator.fail) throw error
        frames.push(...translator.fail(error))
        sourceEnded = true
      }
      for (const frame of frames) controller.enqueue(frame)
      if (translator.done || sourceEnded) {
        controller.close()
        if (!sourceEnded) await reader.cancel().catch(() => {})
      }
    },
    cancel: (reason) => reader.cancel(reason).catch(() => {}),
  })
}

/** A chat stream that ended before any finish reason: the answer is incomplete, whatever else arrived. */
export const chatStreamInterrupted = (): GatewayError =>
  new GatewayError({ status: 502, type: 'provider_error', code: 'stream_interrupted', message: 'The upstream stream ended before the answer was complete.' })

/** What an ingress protocol writes while chat chunks arrive; it emits its own frames as it goes. */
export interface ChatStreamWriter {
  readonly ended: boolean
  start(): void
  chunk(chunk: Record<string, unknown>): void
  /** The chat stream is over (`[DONE]` or its end): the end of the answer, or `chatStreamInterrupted` without a finish reason. */
  finish(): void
  fail(error: GatewayError): void
}

/** A chat chunk stream (SSE bytes) in the client's protocol, written by the writer `writerFor` makes. */
export function chatStreamToProtocol(chunks: ReadableStream<Uint8Array>, writerFor: (emit: (frame: Uint8Array) => void) => ChatStreamWriter): ReadableStream<Uint8Array> {
  const pending: Uint8Array[] = []
  const writer = writerFor((frame) => pending.push(frame))
  const written = () => pending.splice(0)
  return translateEventStream(chunks, {
    get done() {
      return writer.ended
    },
    start() {
      writer.start()
      return written()
    },
    translate(event) {
      if (event.data === '[DONE]') writer.finish()
      else {
        const chunk = parseChunk(event.data)
        if (chunk?.error !== undefined) writer.fail(chatStreamError(chunk.error))
        else if (chunk) writer.chunk(chunk)
      }
      return written()
    },
    end() {
      writer.finish()
      return written()
    },
    fail(error) {
      writer.fail(toGatewayError(error))
      return written()
    },
  })
}

function parseChunk(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * `data: {"error":…}` inside a chat stream (what upstreams and the gateway's own adapters send when a stream
 * fails after its headers), as a GatewayError: its `status_code` or 502, its code (or type), its provider.
 */
export function chatStreamError(raw: unknown): GatewayError {
  const e = (typeof raw === 'object' && raw !== null ? raw : { message: raw }) as Record<string, unknown>
  return new GatewayError({
    status: typeof e.status_code === 'number' ? e.status_code : 502,
    type: 'provider_error',
    message: typeof e.message === 'string' ? e.message : 'The upstream reported an error inside the stream.',
    code: typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : null,
    provider: typeof e.provider === 'string' ? e.provider : '',
  })
}

/** `data: {"error":…}` for a chat stream that fails after its headers went out (read back by chatStreamError). */
export function chatErrorFrame(message: string, code: string, type = 'server_error'): Uint8Array {
  return dataFrame({ error: { message, type, param: null, code } })
}

/** How a provider's translated stream ends when the upstream closed before its answer was complete. */
export const chatStreamEndedEarly = (): Uint8Array => chatErrorFrame('The provider ended the stream early.', 'stream_interrupted')
