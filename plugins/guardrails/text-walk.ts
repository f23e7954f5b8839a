/**
 * @module Finds the human/model text inside a request or response body and rewrites it without touching structure,
 * ids, roles or model names. Where the text is comes from the API (`guardedTexts` and `tools` of its shape,
 * src/protocols/api-shape.ts): under each root field, the strings of text fields at any depth. A request's tool
 * definitions are text the model reads too: their descriptions, the tool's own and its parameters' at any depth of
 * the schema (names, types and enums are structure and stay as they are).
 */
import type { ApiShape } from '../../src/protocols/api-shape.ts'

type Json = Record<string, unknown>
export type TextMap = (body: Json, fn: (text: string) => string) => Json

const TEXT_KEYS = new Set(['content', 'text', 'input', 'output', 'arguments', 'instructions', 'system', 'refusal', 'message'])

function walk(value: unknown, textual: boolean, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return textual ? fn(value) : value
  if (Array.isArray(value)) return value.map((v) => walk(v, textual, fn))
  if (typeof value !== 'object' || value === null) return value
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) out[key] = walk(v, TEXT_KEYS.has(key) || (textual && typeof v !== 'string'), fn)
  return out
}

function mapRoots(body: Json, roots: readonly string[], fn: (text: string) => string): Json {
  const out: Json = { ...body }
  for (const root of roots) if (body[root] !== undefined) out[root] = walk(body[root], true, fn)
  return out
}

/** Every `description` string in a tool definition, however deep (a parameter named `description` is walked into). */
function walkDescriptions(value: unknown, fn: (text: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => walkDescriptions(v, fn))
  if (typeof value !== 'object' || value === null) return value
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) out[key] = key === 'description' && typeof v === 'string' ? fn(v) : walkDescriptions(v, fn)
  return out
}

export interface TextMaps {
  request: TextMap
  response: TextMap
}

const MAPS = new WeakMap<ApiShape, TextMaps | null>()

/** The maps of a request's and an answer's texts in `api` (made once per API); undefined when it has no texts. */
export function textMapsOf(api: ApiShape): TextMaps | undefined {
  let maps = MAPS.get(api)
  if (maps === undefined) MAPS.set(api, (maps = textMaps(api) ?? null))
  return maps ?? undefined
}

export function textMaps(api: Pick<ApiShape, 'guardedTexts' | 'tools'>): TextMaps | undefined {
  const texts = api.guardedTexts
  if (!texts) return undefined
  const toolRoots = api.tools?.roots ?? []
  return {
    request(body, fn) {
      const out = mapRoots(body, texts.request, fn)
      for (const root of toolRoots) if (body[root] !== undefined) out[root] = walkDescriptions(body[root], fn)
      return out
    },
    response: (body, fn) => mapRoots(body, texts.response, fn),
  }
}

export function collectTexts(body: Json, map: TextMap): string[] {
  const texts: string[] = []
  map(body, (t) => {
    texts.push(t)
    return t
  })
  return texts
}
