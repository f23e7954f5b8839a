/**
 * @module Splits an entry's LogData into the light part every list shows and the heavy part only the detail view
 * needs (request and response bodies, upstream error bodies and headers of attempts, rewritten bodies). Stores
 * keep the two apart so a list page never reads a body (the reference gateway's list took 14 s / 27 MB before it
 * learnt this).
 */
import type { LogData } from './entry.ts'

/** The heavy parts of LogData; attempt and revision parts are keyed by their position in the light arrays. */
export interface HeavyPayload {
  request_body?: unknown
  response_body?: unknown
  attempts?: { index: number; response_body?: unknown; response_headers?: Record<string, string> }[]
  revisions?: { index: number; body: unknown }[]
}

/** LogData keys whose values go to the heavy part (the light copy leaves them out). */
const HEAVY_KEYS = new Set(['request_body', 'response_body', 'attempts', 'request_revisions'])

/**
 * Plain loops rather than rest destructuring (`{ body, ...meta }`): JavaScriptCore copies rest properties on a
 * slow path, and this runs for every audited request.
 */
export function splitHeavy(data: LogData): { light: LogData; heavy: HeavyPayload | undefined } {
  const light: Record<string, unknown> = {}
  for (const key in data) if (!HEAVY_KEYS.has(key)) light[key] = data[key as keyof LogData]
  let heavy: HeavyPayload | undefined
  if (data.request_body !== undefined) (heavy ??= {}).request_body = data.request_body
  if (data.response_body !== undefined) (heavy ??= {}).response_body = data.response_body
  if (data.attempts) {
    const parts: NonNullable<HeavyPayload['attempts']> = []
    light.attempts = data.attempts.map((attempt, index) => {
      if (attempt.response_body === undefined && attempt.response_headers === undefined) return attempt
      const part: (typeof parts)[number] = { index }
      const meta: Record<string, unknown> = {}
      for (const key in attempt) {
        const value = attempt[key as keyof typeof attempt]
        if (key === 'response_body') part.response_body = value
        else if (key === 'response_headers') part.response_headers = value as Record<string, string>
        else meta[key] = value
      }
      parts.push(part)
      return meta
    })
    if (parts.length > 0) (heavy ??= {}).attempts = parts
  }
  if (data.request_revisions) {
    const parts: NonNullable<HeavyPayload['revisions']> = []
    light.request_revisions = data.request_revisions.map((revision, index) => {
      if (revision.body === undefined) return revision
      parts.push({ index, body: revision.body })
      const meta: Record<string, unknown> = {}
      for (const key in revision) if (key !== 'body') meta[key] = revision[key as keyof typeof revision]
      return meta
    })
    if (parts.length > 0) (heavy ??= {}).revisions = parts
  }
  return { light: light as LogData, heavy }
}

/** Puts the heavy parts back; `attempts: false` drops the attempts' error bodies and headers (conversation view). */
export function mergeHeavy(light: LogData, heavy: HeavyPayload | undefined, options: { attempts?: boolean } = {}): LogData {
  if (!heavy) return light
  const data: LogData = { ...light }
  if (heavy.request_body !== undefined) data.request_body = heavy.request_body
  if (heavy.response_body !== undefined) data.response_body = heavy.response_body
  if (heavy.attempts && data.attempts && options.attempts !== false) {
    data.attempts = data.attempts.map((a) => ({ ...a }))
    for (const part of heavy.attempts) {
      const attempt = data.attempts[part.index]
      if (!attempt) continue
      if (part.response_body !== undefined) attempt.response_body = part.response_body
      if (part.response_headers !== undefined) attempt.response_headers = part.response_headers
    }
  }
  if (heavy.revisions && data.request_revisions) {
    data.request_revisions = data.request_revisions.map((r) => ({ ...r }))
    for (const part of heavy.revisions) {
      const revision = data.request_revisions[part.index]
      if (revision) revision.body = part.body
    }
  }
  return data
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * True when the bodies look like a conversation a transcript view can show: a request with `messages`, `input`,
 * string `instructions` or `previous_response_id`, or a response with `choices` or typed `output` items.
 */
export function looksLikeConversation(heavy: HeavyPayload | undefined): boolean {
  if (!heavy) return false
  const request = heavy.request_body
  if (isObject(request)) {
    if (Array.isArray(request.messages) || request.input !== undefined || typeof request.instructions === 'string' || typeof request.previous_response_id === 'string') return true
  }
  const response = heavy.response_body
  if (isObject(response)) {
    if (Array.isArray(response.choices)) return true
    if (Array.isArray(response.output) && response.output.some((item) => isObject(item) && typeof item.type === 'string')) return true
  }
  return false
}
