/**
 * @module What the audit `search` parameter means, independent of the backend: a canonical UUID is looked up by
 * equality on the id columns (an index hit, not a scan); any other term matches entries where its words appear,
 * in order, at the start of words of the searchable text, case- and accent-insensitively ("rate limit" finds
 * "Rate limit reached", "gpt-4" finds "gpt-4o-mini").
 */
import type { AuditLogEntry } from './entry.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type SearchPlan = { kind: 'uuid'; values: string[] } | { kind: 'words'; words: string[] } | { kind: 'none' }

export function planSearch(term: string): SearchPlan {
  const trimmed = term.trim()
  if (UUID.test(trimmed)) return { kind: 'uuid', values: [...new Set([trimmed, trimmed.toLowerCase()])] }
  const words = trimmed.toLowerCase().match(/[\p{L}\p{N}]+/gu)
  return words ? { kind: 'words', words } : { kind: 'none' }
}

/**
 * The searchable text of an entry: request_id (unless it is the entry's own id, which UUID search finds),
 * requested and resolved model, provider type and name, method, path, session id, error type and message, and
 * the security event type (a part equal to the one before it is left out).
 */
export function searchableText(entry: AuditLogEntry): string {
  let text = entry.request_id !== entry.id ? entry.request_id : ''
  let previous = ''
  for (const part of [
    entry.requested_model,
    entry.resolved_model,
    entry.provider,
    entry.provider_name,
    entry.method,
    entry.path,
    entry.session_id,
    entry.error_type,
    entry.data.error_message,
    entry.data.event_type,
  ]) {
    // The resolved model and provider name usually repeat their neighbour: indexing them twice finds nothing more.
    if (part && part !== previous) text = text ? `${text} ${part}` : part
    previous = part ?? ''
  }
  return text
}
