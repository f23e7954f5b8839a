/**
 * @module Transcript streams (`stream=true` on /v1/audio/transcriptions, for the models that stream): a
 * `transcript.text.delta` event per piece of text, then `transcript.text.done` with the whole text and the usage.
 * The fold keeps the non-stream answer (`{text, usage}`); a broken stream ends with an `error` event, which the
 * SDKs raise as an APIError.
 */
import { namedEventFrame } from '../../pipeline/sse.ts'
import { parseJson, type StreamCodec } from '../../pipeline/stream-codecs.ts'

/** Only the done event carries usage; an error frame carries `error`. */
const USAGE_ONLY_MARKERS = ['.done"', '"error"']

export const transcriptionStreamCodec: StreamCodec = {
  foldAlways: false,
  createFold(usageOnly = false) {
    let text = ''
    let usage: unknown
    let error: unknown
    let done = false
    return {
      only: usageOnly ? USAGE_ONLY_MARKERS : undefined,
      add(event) {
        if (usageOnly && !USAGE_ONLY_MARKERS.some((marker) => event.data.includes(marker))) return
        const payload = parseJson(event.data)
        if (!payload) return
        if (event.event === 'error' || payload.type === 'error' || payload.error) error = payload.error ?? payload
        if (payload.type === 'transcript.text.delta' && typeof payload.delta === 'string') text += payload.delta
        if (payload.type !== 'transcript.text.done') return
        done = true
        if (typeof payload.text === 'string') text = payload.text
        if (payload.usage) usage = payload.usage
      },
      result: () => (done || text ? { text, ...(usage ? { usage } : {}) } : undefined),
      usage: () => usage,
      error: () => error,
    }
  },
  errorFrame: (error) => namedEventFrame('error', { type: 'error', ...error.toJSON() }),
}
