/**
 * @module Finds the human/model text inside a request or response body of any of the three APIs (chat
 * messages, Responses input/output, Anthropic messages) and rewrites it without touching structure, ids,
 * roles or model names. A request's tool definitions are text the model reads too: their descriptions, the tool's
 * own and its parameters' at any depth of the schema (names, types and enums are structure and stay as they are).
 */

type Json = Record<string, unknown>

const REQUEST_ROOTS = ['messages', 'input', 'instructions', 'system', 'prompt']
const RESPONSE_ROOTS = ['choices', 'output', 'content']
/** Chat `tools` and legacy `functions`, Responses and Anthropic `tools`. */
const TOOL_ROOTS = ['tools', 'functions']
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

export function mapRequestTexts(body: Json, fn: (text: string) => string): Json {
  const out = mapRoots(body, REQUEST_ROOTS, fn)
  for (const root of TOOL_ROOTS) if (body[root] !== undefined) out[root] = walkDescriptions(body[root], fn)
  return out
}
export const mapResponseTexts = (body: Json, fn: (text: string) => string) => mapRoots(body, RESPONSE_ROOTS, fn)

export function collectTexts(body: Json, roots: 'request' | 'response'): string[] {
  const texts: string[] = []
  ;(roots === 'request' ? mapRequestTexts : mapResponseTexts)(body, (t) => {
    texts.push(t)
    return t
  })
  return texts
}
