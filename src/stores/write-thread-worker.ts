/**
 * @module The write thread's entry (its composition root, as open.ts is the process's, so it names the backends):
 * the thread owns its own connection to the gateway's database (SQLite or PostgreSQL) and stores the
 * batches the main thread posts (audit entries, usage records), so the work of storing rows (encoding them for the
 * database, indexes, full-text search) never runs on the thread that serves requests. The backend's half is its
 * `thread-writes.ts`, loaded when the thread is opened. Built into the binary as a second entrypoint (see the
 * `build` script in package.json).
 */
import type { AuditRow } from '../audit/record.ts'
import type { UsageRecord } from '../usage/record.ts'
import type { PostgresSettings } from './postgres/client.ts'
import { unpackRows } from './write-path/packed-rows.ts'
import type { ThreadWrites, WriteThreadReply, WriteThreadRequest } from './write-path/thread-protocol.ts'

/** The database the thread opens: a SQLite file, or a PostgreSQL server. */
export type WriteThreadTarget = { backend: 'sqlite'; path: string } | { backend: 'postgres'; settings: PostgresSettings }

declare const self: Worker
let writes: ThreadWrites | undefined

const open = (target: WriteThreadTarget): Promise<ThreadWrites> =>
  target.backend === 'sqlite'
    ? import('./sqlite/thread-writes.ts').then((m) => m.openThreadWrites(target.path))
    : import('./postgres/thread-writes.ts').then((m) => m.openThreadWrites(target.settings))

async function write(to: ThreadWrites, message: Exclude<WriteThreadRequest, { kind: 'open' }>): Promise<number> {
  if (message.kind === 'audit') return to.writeAudit(unpackRows<AuditRow>(message.rows))
  if (message.kind === 'expire') {
    if (!to.deleteAuditOlderThan) throw new Error('this write thread does not delete expired audit entries')
    return to.deleteAuditOlderThan(message.cutoffMs, message.batch)
  }
  const records = JSON.parse(message.batch) as UsageRecord[]
  await to.writeUsage(records)
  return records.length
}

// Messages are handled in order: `open` settles before the first batch is read.
let ready: Promise<void> = Promise.resolve()
self.onmessage = (event: MessageEvent<WriteThreadRequest>) => {
  const message = event.data
  ready = ready.then(async () => {
    if (message.kind === 'open') {
      try {
        writes = await open(message.target as WriteThreadTarget)
      } catch (error) {
        postMessage({ broken: String((error as Error)?.message ?? error) } satisfies WriteThreadReply)
      }
      return
    }
    const to = writes
    if (!to) return // broken: the main thread writes this batch itself
    // Not awaited: batches (an audit and a usage batch) may be stored at the same time, as on the main thread.
    write(to, message).then(
      (written) => postMessage({ id: message.id, ok: true, written } satisfies WriteThreadReply),
      (error) => postMessage({ id: message.id, ok: false, ...to.failure(error) } satisfies WriteThreadReply),
    )
  })
}
