/**
 * @module Text to speech (`/v1/audio/speech`): OpenAI's API, served by providers that speak it natively. The answer
 * is audio in the requested `response_format`, passed to the client through the byte pump as it arrives, or with
 * `stream_format: "sse"` an event stream of `speech.audio.delta` events ending in `speech.audio.done` (which
 * carries the token usage of the GPT TTS models). The input text is guarded and counted; its characters are the
 * usage's units (tts-1 and tts-1-hd are priced per character).
 */
import { dataFrame } from '../../pipeline/sse.ts'
import { parseJson, type StreamCodec } from '../../pipeline/stream-codecs.ts'
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { UnitUsage } from '../../usage/units.ts'
import type { ApiShape } from '../api-shape.ts'

type Json = Record<string, unknown>

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The characters a request asks to speak (code points, as OpenAI counts them). */
export function requestedCharacters(request: Json): UnitUsage {
  return { unit: 'character', units: [...text(request.input)].length, unit_variant: '' }
}

/** The media types of OpenAI's speech answers, one per `response_format` (mp3, opus, aac, flac, wav, pcm). */
export const SPEECH_AUDIO_TYPES = ['audio/mpeg', 'audio/opus', 'audio/aac', 'audio/flac', 'audio/wav', 'audio/pcm'] as const

const USAGE_ONLY_MARKERS = ['"speech.audio.done"', '"error"']

/** `stream_format: "sse"`: data-only frames; the done event's usage is kept, the audio deltas are not. */
export const speechStreamCodec: StreamCodec = {
  foldAlways: false,
  createFold(usageOnly = false) {
    let usage: unknown
    let error: unknown
    let chunks = 0
    return {
      only: usageOnly ? USAGE_ONLY_MARKERS : undefined,
      add(event) {
        if (usageOnly && !USAGE_ONLY_MARKERS.some((marker) => event.data.includes(marker))) return
        const payload = parseJson(event.data)
        if (!payload) return
        if (payload.error) error = payload.error
        if (payload.type === 'speech.audio.delta') chunks++
        if (payload.type === 'speech.audio.done') usage = payload.usage
      },
      // What was streamed, without the audio: how many chunks and the usage.
      result: () => ({ type: 'speech.audio.done', audio_chunks: chunks, ...(usage ? { usage } : {}) }),
      usage: () => usage,
      error: () => error,
    }
  },
  errorFrame: (error) => dataFrame(error.toJSON()),
}

export const speechApi: ApiShape = {
  id: 'speech',
  upstream: { native: (adapter) => adapter.audioSpeech, overChat: null, fallback: null },
  streamCodec: speechStreamCodec,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: { request: ['input', 'instructions'], response: [] },
  tools: null,
  promptTokens: (body) => countTextsTokens([text(body.input), text(body.instructions)]),
  parameters: null,
  cache: null,
  usage: {
    units: ['character'],
    streamUsageOnRequest: false,
    // Audio answers report no usage (the gateway counts the input's tokens); the SSE stream's done event does.
    read: (reported, request) => {
      const tokens = usageFromOpenAI(reported)
      return tokens && { ...tokens, ...requestedCharacters(request) }
    },
    // Audio has no text to count: its cost is the input's (tokens, characters).
    countOutputTokens: async () => 0,
    requestedUnits: requestedCharacters,
  },
}
