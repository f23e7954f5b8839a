/**
 * @module The audit write thread: owns its own SQLite connection to the gateway's database and stores the
 * batches the writer posts, so inserting rows (indexes, full-text search) never runs on the thread that serves
 * requests. Built into the binary as a second entrypoint (see the `build` script in package.json).
 */
import { SqliteAuditStore } from '../stores/sqlite/audit-log.ts'
import { openSqlite } from '../stores/sqlite/client.ts'
import type { AuditLogEntry } from './entry.ts'

/** `entries` is a JSON array of AuditLogEntry. */
export type WorkerRequest = { kind: 'open'; path: string } | { kind: 'write'; id: number; entries: string }
export type WorkerReply = { id: number; ok: true; written: number } | { id: number; ok: false; error: string }

declare const self: Worker
let store: SqliteAuditStore | undefined

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const message = event.data
  if (message.kind === 'open') {
    store = new SqliteAuditStore(openSqlite(message.path))
    return
  }
  try {
    if (!store) throw new Error('audit write thread used before it was opened')
    const entries = JSON.parse(message.entries) as AuditLogEntry[]
    postMessage({ id: message.id, ok: true, written: await store.writeBatch(entries) } satisfies WorkerReply)
  } catch (error) {
    postMessage({ id: message.id, ok: false, error: (error as Error).message } satisfies WorkerReply)
  }
}
