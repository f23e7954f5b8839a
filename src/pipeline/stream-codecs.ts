/**
 * @module What the pump needs to know of a client's stream protocol: how to fold its events into the non-stream
 * document, and how to end it with a well-formed error when the upstream fails mid-stream. Each API names its
 * codec in its shape (`streamCodec`, src/protocols/api-shape.ts); Chat Completions' codec is here.
 */
import type { GatewayError } from '../errors/gateway-error.ts'
import { ChatStreamFold } from './chat-stream-fold.ts'
import { dataFrame, type SseEvent } from './sse.ts'

export interface StreamFold {
  add(event: SseEvent): void
  /** The non-stream equivalent of what was streamed so far. */
  result(): unknown
  usage(): unknown
  /** An error the stream itself carried (`data: {"error":…}`), if any. */
  error(): unknown
  /** `add` ignores events containing none of these strings; the parser then skips reads without them unread. */
  readonly only?: readonly string[]
}

export interface StreamCodec {
  /** The error frame needs stream state (e.g. the Responses sequence number), so events are always parsed. */
  foldAlways: boolean
  /** `usageOnly`: only events that can carry usage or an error are parsed; `result()` is then partial. */
  createFold(usageOnly?: boolean): StreamFold
  errorFrame(error: GatewayError, fold: StreamFold | undefined): Uint8Array
}

export function parseJson(data: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(data)
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** In usage-only mode a `data:`-only fold needs only the events that can carry usage or an error. */
const USAGE_ONLY_MARKERS = ['"usage"', '"error"']

/** What a `data:`-only stream's fold keeps: its chunks added in order, the document, the usage, an error frame. */
export interface ChunkFold {
  add(chunk: Record<string, unknown>): void
  result(): unknown
  readonly usage: unknown
  readonly error: unknown
}

/**
 * The codec of an OpenAI-style stream of `data:`-only JSON chunks ended by `[DONE]` (Chat Completions, legacy
 * completions): only the fold differs. Such clients accept no `event:` lines; every SDK raises an APIError on
 * `data: {"error":…}`.
 */
export function dataOnlyStreamCodec(newFold: () => ChunkFold): StreamCodec {
  return {
    foldAlways: false,
    createFold(usageOnly = false) {
      const fold = newFold()
      return {
        only: usageOnly ? USAGE_ONLY_MARKERS : undefined,
        add(event) {
          if (event.data === '[DONE]') return
          if (usageOnly && !USAGE_ONLY_MARKERS.some((marker) => event.data.includes(marker))) return
          const chunk = parseJson(event.data)
          if (chunk) fold.add(chunk)
        },
        result: () => fold.result(),
        usage: () => fold.usage,
        error: () => fold.error,
      }
    },
    errorFrame: (error) => dataFrame(error.toJSON()),
  }
}

/** Chat Completions streams. */
export const chatStreamCodec: StreamCodec = dataOnlyStreamCodec(() => new ChatStreamFold())

/**
 * For an event stream from an API that has no stream codec (it never streams, yet an upstream answered with one):
 * nothing is folded, and a failure ends it with a `data:` error frame.
 */
export const opaqueStreamCodec: StreamCodec = {
  foldAlways: false,
  createFold: () => ({ only: [], add() {}, result: () => undefined, usage: () => undefined, error: () => undefined }),
  errorFrame: (error) => dataFrame(error.toJSON()),
}
