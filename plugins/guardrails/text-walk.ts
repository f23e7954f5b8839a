/**
 * @module Finds the human/model text inside a request or response body of any of the three APIs (chat
 * messages, Responses input/output, Anthropic messages) and rewrites it without touching structure, ids,
 * roles or model names.
 */

type Json = Record<string, unknown>

const REQUEST_ROOTS = ['messages', 'input', 'instructions', 'system', 'prompt']
const RESPONSE_ROOTS = ['choices', 'output', 'content']
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

export const mapRequestTexts = (body: Json, fn: (text: string) => string) => mapRoots(body, REQUEST_ROOTS, fn)
export const mapResponseTexts = (body: Json, fn: (text: string) => string) => mapRoots(body, RESPONSE_ROOTS, fn)

export function collectTexts(body: Json, roots: 'request' | 'response'): string[] {
  const texts: string[] = []
  ;(roots === 'request' ? mapRequestTexts : mapResponseTexts)(body, (t) => {
    texts.push(t)
    return t
  })
  return texts
}
