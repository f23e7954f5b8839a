/**
 * @module The conversation view's walk, the same on every backend: the session around an entry, else its
 * Responses `previous_response_id` chain. The store only answers single lookups (src/stores/types.ts AuditReader).
 *
 * Session ids and `previous_response_id` are chosen by clients, so another tenant may send the same ones: an
 * entry joins the thread only when it was made by the anchor's principal and lies inside the reader's subtree
 * (`ThreadFilter`), checked by the store's query, so a flood of foreign entries cannot crowd the owner's out.
 */
import type { AuditReader, AuditThreadEntry, ThreadFilter } from '../stores/types.ts'
import type { AuditConversation } from './entry.ts'

/** Who reads: the subtree the walk stays in (undefined: all), and whether the anchor itself may be read. */
export interface ConversationReader {
  userPath?: string
  mayRead(entry: AuditThreadEntry['entry']): boolean
}

export async function auditConversation(reader: AuditReader, anchorId: string, limit: number, who: ConversationReader): Promise<AuditConversation | undefined> {
  const anchor = await reader.threadEntry(anchorId)
  if (!anchor || !who.mayRead(anchor.entry)) return undefined
  const filter: ThreadFilter = { principalId: anchor.entry.principal_id, ...(who.userPath === undefined ? {} : { userPath: who.userPath }) }
  const thread = anchor.entry.session_id ? await sessionAround(reader, anchor, limit, filter) : await responseChain(reader, anchor, limit, filter)
  return { anchor_id: anchor.entry.id, entries: thread.entries.map((t) => t.entry), truncated: thread.truncated }
}

interface Thread {
  entries: AuditThreadEntry[]
  truncated: boolean
}

/** The anchor with up to half the limit before it (more when fewer follow), oldest first. */
async function sessionAround(reader: AuditReader, anchor: AuditThreadEntry, limit: number, filter: ThreadFilter): Promise<Thread> {
  const sessionId = anchor.entry.session_id
  const [before, after] = await Promise.all([reader.sessionEntries(sessionId, anchor, 'before', limit, filter), reader.sessionEntries(sessionId, anchor, 'after', limit, filter)])
  const room = limit - 1
  const takeBefore = Math.min(before.length, Math.max(Math.floor(room / 2), room - after.length))
  const takeAfter = Math.min(after.length, room - takeBefore)
  return { entries: [...before.slice(0, takeBefore).reverse(), anchor, ...after.slice(0, takeAfter)], truncated: before.length > takeBefore || after.length > takeAfter }
}

/** Follows `previous_response_id` back and forward from the anchor (first answer wins on a fork; cycle-safe). */
async function responseChain(reader: AuditReader, anchor: AuditThreadEntry, limit: number, filter: ThreadFilter): Promise<Thread> {
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
  await walk(async (cur) => (cur.previousResponseId ? reader.byResponseId(cur.previousResponseId, filter) : undefined), older)
  await walk(async (cur) => (cur.responseId ? reader.byPreviousResponseId(cur.responseId, filter) : undefined), newer)
  return { entries: [...older.reverse(), anchor, ...newer], truncated }
}
