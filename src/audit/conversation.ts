/**
 * @module The conversation view's walk, the same on every backend: the session around an entry, else its
 * Responses `previous_response_id` chain. The store only answers single lookups (src/stores/types.ts AuditReader).
 */
import type { AuditReader, AuditThreadEntry } from '../stores/types.ts'
import type { AuditConversation } from './entry.ts'

export async function auditConversation(reader: AuditReader, anchorId: string, limit: number): Promise<AuditConversation | undefined> {
  const anchor = await reader.threadEntry(anchorId)
  if (!anchor) return undefined
  const thread = anchor.entry.session_id ? await sessionAround(reader, anchor, limit) : await responseChain(reader, anchor, limit)
  return { anchor_id: anchor.entry.id, entries: thread.entries.map((t) => t.entry), truncated: thread.truncated }
}

interface Thread {
  entries: AuditThreadEntry[]
  truncated: boolean
}

/** The anchor with up to half the limit before it (more when fewer follow), oldest first. */
async function sessionAround(reader: AuditReader, anchor: AuditThreadEntry, limit: number): Promise<Thread> {
  const sessionId = anchor.entry.session_id
  const [before, after] = await Promise.all([reader.sessionEntries(sessionId, anchor, 'before', limit), reader.sessionEntries(sessionId, anchor, 'after', limit)])
  const room = limit - 1
  const takeBefore = Math.min(before.length, Math.max(Math.floor(room / 2), room - after.length))
  const takeAfter = Math.min(after.length, room - takeBefore)
  return { entries: [...before.slice(0, takeBefore).reverse(), anchor, ...after.slice(0, takeAfter)], truncated: before.length > takeBefore || after.length > takeAfter }
}

/** Follows `previous_response_id` back and forward from the anchor (first answer wins on a fork; cycle-safe). */
async function responseChain(reader: AuditReader, anchor: AuditThreadEntry, limit: number): Promise<Thread> {
  const seen = new Set([anchor.entry.id])
  const older: AuditThreadEntry[] = []
  const newer: AuditThreadEntry[] = []
  let truncated = false
  const walk = async (step: (cur: AuditThreadEntry) => Promise<AuditThreadEntry | undefined>, into: AuditThreadEntry[]) => {
    for (let cur = anchor; ; ) {
      const next = await step(cur)
      if (!next || seen.has(next.entry.id)) return
      if (older.length + newer.length + 1 >= limit) {
        truncated = true
        return
      }
      seen.add(next.entry.id)
      into.push(next)
      cur = next
    }
  }
  await walk(async (cur) => (cur.previousResponseId ? reader.byResponseId(cur.previousResponseId) : undefined), older)
  await walk(async (cur) => (cur.responseId ? reader.byPreviousResponseId(cur.responseId) : undefined), newer)
  return { entries: [...older.reverse(), anchor, ...newer], truncated }
}
