/**
 * @module The Responses stream codec: folds `response.*` events into the final Response and ends a broken
 * stream with an `error` event carrying the next sequence number.
 */
import { namedEventFrame } from '../../pipeline/sse.ts'
import { parseJson, type StreamCodec, type StreamFold } from '../../pipeline/stream-codecs.ts'

export const responsesStreamCodec: StreamCodec = {
  foldAlways: true,
  createFold() {
    let response: Record<string, unknown> | undefined
    let error: unknown
    let lastSequence = -1
    return {
      add(event) {
        const payload = parseJson(event.data)
        if (!payload) return
        if (typeof payload.sequence_number === 'number') lastSequence = payload.sequence_number
        if (payload.type === 'error') error = payload
        if (typeof payload.response === 'object' && payload.response !== null) {
          response = payload.response as Record<string, unknown>
          if (payload.type === 'response.failed') error = response.error
        }
      },
      result: () => response,
      usage: () => response?.usage,
      error: () => error,
      get lastSequence() {
        return lastSequence
      },
    } as StreamFold & { lastSequence: number }
  },
  errorFrame(error, fold) {
    const seq = ((fold as { lastSequence?: number } | undefined)?.lastSequence ?? -1) + 1
    return namedEventFrame('error', { type: 'error', code: error.code ?? error.type, message: error.message, param: error.param, sequence_number: seq })
  },
}
