/**
 * @module What a transcription or translation may answer (`response_format`): JSON (`json`, `verbose_json`) or plain
 * text (`text`, and the subtitle formats `srt` and `vtt`), which the gateway passes on with the upstream's content
 * type. A subtitle answer says how long the audio ran up to its last cue: its latest end time.
 */

export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const

const PLAIN_FORMATS: ReadonlySet<unknown> = new Set(['text', 'srt', 'vtt'])

/** The request asks for a plain-text answer (text, srt, vtt). */
export function isPlainTranscript(request: Record<string, unknown>): boolean {
  return PLAIN_FORMATS.has(request.response_format)
}

/** A cue's end: `--> 00:01:02,500` (SRT), `--> 01:02.500` or `--> 00:01:02.500` (WebVTT, hours optional). */
const CUE_END = /-->[ \t]*(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[,.](\d{3})/g

/** The latest cue end of an SRT or WebVTT text, in seconds; undefined when it has no cue (a `text` answer). */
export function lastCueSeconds(subtitles: string): number | undefined {
  let latest: number | undefined
  for (const match of subtitles.matchAll(CUE_END)) {
    const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2]) * 60 + Number(match[3]) + Number(match[4]) / 1000
    if (latest === undefined || seconds > latest) latest = seconds
  }
  return latest
}
