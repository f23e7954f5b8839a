/**
 * @module What of a request's arguments an audit entry keeps: fields whose name matches a configured pattern
 * (`password`, `*token*`; case-insensitive, at any depth) become `[REDACTED]`, and arguments larger than the
 * configured size are replaced by a note of their size. Depth and breadth are bounded, so a hostile document
 * costs no more than its size.
 */
import { REDACTED } from '../pipeline/headers.ts'
import { globMatcher } from './visibility.ts'

const MAX_DEPTH = 32

/** `json`: the JSON text of `kept`, when it is the value itself (nothing redacted), so it is not serialised again. */
export type ArgumentRedactor = (value: unknown) => { kept: unknown; bytes: number; json?: string }

export function argumentRedactor(patterns: readonly string[], maxBytes: number): ArgumentRedactor {
  const matchers = patterns.map((p) => globMatcher(p.toLowerCase()))
  const sensitive = (name: string) => {
    const lower = name.toLowerCase()
    return matchers.some((m) => m(lower))
  }
  // Copies only what changes: arguments without a secret are kept as they are, not copied.
  const walk = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== 'object') return value
    if (depth >= MAX_DEPTH) return '[too deep]'
    if (Array.isArray(value)) {
      let out: unknown[] | undefined
      for (let i = 0; i < value.length; i++) {
        const v = walk(value[i], depth + 1)
        if (v !== value[i]) (out ??= value.slice())[i] = v
      }
      return out ?? value
    }
    const o = value as Record<string, unknown>
    let out: Record<string, unknown> | undefined
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue
      const v = sensitive(k) ? REDACTED : walk(o[k], depth + 1)
      if (v !== o[k]) (out ??= { ...o })[k] = v
    }
    return out ?? value
  }
  return (value) => {
    const text = JSON.stringify(value ?? null)
    const bytes = Buffer.byteLength(text)
    if (bytes > maxBytes) return { kept: { omitted: `${bytes} bytes, over the audit limit of ${maxBytes}` }, bytes }
    const kept = walk(value, 0)
    return kept === value && typeof value === 'object' && value !== null ? { kept, bytes, json: text } : { kept, bytes }
  }
}
