/**
 * @module What of a request's arguments an audit entry keeps: fields whose name matches a configured pattern
 * (`password`, `*token*`; case-insensitive, at any depth) become `[REDACTED]`, and arguments larger than the
 * configured size are replaced by a note of their size. Depth and breadth are bounded, so a hostile document
 * costs no more than its size.
 */
import { REDACTED } from '../pipeline/headers.ts'
import { globMatcher } from './visibility.ts'

const MAX_DEPTH = 32

export type ArgumentRedactor = (value: unknown) => { kept: unknown; bytes: number }

export function argumentRedactor(patterns: readonly string[], maxBytes: number): ArgumentRedactor {
  const matchers = patterns.map((p) => globMatcher(p.toLowerCase()))
  const sensitive = (name: string) => {
    const lower = name.toLowerCase()
    return matchers.some((m) => m(lower))
  }
  const walk = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = sensitive(k) ? REDACTED : walk(v, depth + 1)
    return out
  }
  return (value) => {
    const text = JSON.stringify(value ?? null)
    const bytes = Buffer.byteLength(text)
    if (bytes > maxBytes) return { kept: { omitted: `${bytes} bytes, over the audit limit of ${maxBytes}` }, bytes }
    return { kept: walk(value, 0), bytes }
  }
}
