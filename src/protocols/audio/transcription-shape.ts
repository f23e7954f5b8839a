/**
 * @module Speech to text (`/v1/audio/transcriptions`, `/v1/audio/translations`): OpenAI's API, a multipart upload
 * (the audio file streams through, src/http/multipart-upload.ts), served by providers that speak it natively. The
 * `prompt` field is text a model reads (guardrails scan it); the audio is not text, so no prompt tokens are
 * estimated from it. Priced per audio second where the answer says how long the audio was (whisper's
 * `usage: {type: "duration"}`, verbose_json's `duration`, the last cue of an srt or vtt answer: marked estimated,
 * the audio may run on after it), by tokens where it reports them (gpt-4o-transcribe). A `text` answer says neither:
 * its tokens are counted by the gateway.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import type { TokenUsage } from '../../pipeline/snapshots.ts'
import { countTextTokens } from '../../tokens/count.ts'
import type { ApiShape, UsageReading } from '../api-shape.ts'
import { transcriptionStreamCodec } from './transcription-stream-codec.ts'
import { lastCueSeconds } from './transcript-formats.ts'

type Json = Record<string, unknown>

const NO_TOKENS = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated: false }

function audioSeconds(seconds: number, estimated = false): TokenUsage {
  return { ...NO_TOKENS, unit: 'audio_second', units: seconds, unit_variant: '', estimated }
}

/**
 * `usage: {type: "tokens", input_tokens, output_tokens}` or `{type: "duration", seconds}`; else verbose_json's
 * `duration`; for an srt or vtt answer (`answer` its text) its last cue, in whole seconds as whisper reports them.
 */
export function transcriptionUsage(reported: unknown, _request: Json, answer?: Json | string): TokenUsage | undefined {
  if (typeof answer === 'string') {
    const seconds = lastCueSeconds(answer)
    return seconds ? audioSeconds(Math.ceil(seconds), true) : undefined
  }
  const usage = typeof reported === 'object' && reported !== null ? (reported as Json) : undefined
  if (usage?.type === 'duration' && typeof usage.seconds === 'number' && usage.seconds > 0) return audioSeconds(usage.seconds)
  if (usage && (typeof usage.input_tokens === 'number' || typeof usage.output_tokens === 'number')) return usageFromOpenAI(usage)
  if (typeof answer?.duration === 'number' && answer.duration > 0) return audioSeconds(answer.duration)
  return undefined
}

const transcriptionUsageReading: UsageReading = {
  units: ['audio_second'],
  streamUsageOnRequest: false,
  read: transcriptionUsage,
  countOutputTokens: async (answer) => countTextTokens(typeof answer.text === 'string' ? answer.text : ''),
  requestedUnits: null,
}

const promptTokens = (body: Json) => countTextTokens(typeof body.prompt === 'string' ? body.prompt : '')

export const transcriptionsApi: ApiShape = {
  id: 'transcriptions',
  upstream: { native: (adapter) => adapter.audioTranscriptions, overChat: null, fallback: null },
  streamCodec: transcriptionStreamCodec,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: { request: ['prompt'], response: [] },
  tools: null,
  promptTokens,
  parameters: null,
  cache: null,
  usage: transcriptionUsageReading,
}

/** Translations into English: the same form and answers, without streaming. */
export const translationsApi: ApiShape = {
  ...transcriptionsApi,
  id: 'translations',
  upstream: { native: (adapter) => adapter.audioTranslations, overChat: null, fallback: null },
  streamCodec: null,
}
