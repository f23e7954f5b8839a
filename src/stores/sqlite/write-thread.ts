/**
 * @module Batch writes through the write thread (write-thread-worker.ts). The queues, spill files and retries stay
 * with their owners on the main thread (the audit writer, the usage service); only the SQLite work moves. If the
 * thread cannot start or dies, writes fall back to the main thread's own connection, so rows keep being stored
 * either way.
 */
import type { AuditRow } from '../../audit/record.ts'
import type { Logger } from '../../log/logger.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { packRows } from './packed-rows.ts'
import type { WriteThreadReply, WriteThreadRequest } from './write-thread-worker.ts'

export interface BatchWrites {
  /** Resolves with the number of rows stored (replays of stored ones are skipped). */
  writeAudit(rows: readonly AuditRow[]): Promise<number>
  writeUsage(records: readonly UsageRecord[]): Promise<void>
  close(): void
}

/**
 * Where the thread's script is. In a source checkout it sits beside this file; in the compiled binary every
 * module shares the entry's URL, so the entry (src/main.ts) passes `new URL('./stores/sqlite/write-thread-worker.ts', …)`.
 */
const defaultWriteThreadUrl = () => new URL('./write-thread-worker.ts', import.meta.url).href

type Kind = 'audit' | 'usage'
interface Waiter {
  kind: Kind
  batch: readonly unknown[]
  resolve: (written: number) => void
  reject: (error: Error) => void
}

export function startWriteThread(databasePath: string, fallback: BatchWrites, log: Logger, workerUrl = defaultWriteThreadUrl()): BatchWrites {
  const pending = new Map<number, Waiter>()
  let next = 0
  let broken = false
  const worker = new Worker(workerUrl)
  const writeLocally = (kind: Kind, batch: readonly unknown[]): Promise<number> =>
    kind === 'audit' ? fallback.writeAudit(batch as AuditRow[]) : fallback.writeUsage(batch as UsageRecord[]).then(() => batch.length)
  const giveUp = (reason: string) => {
    if (broken) return
    broken = true
    log.warn({ reason }, 'write thread unavailable; writing audit entries and usage records on the main thread')
    worker.terminate()
    for (const { kind, batch, resolve, reject } of pending.values()) writeLocally(kind, batch).then(resolve, reject)
    pending.clear()
  }
  worker.onmessage = (event: MessageEvent<WriteThreadReply>) => {
    const reply = event.data
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.ok) waiter.resolve(reply.written)
    else waiter.reject(new Error(reply.error))
  }
  worker.onerror = (event) => giveUp(event.message)
  worker.postMessage({ kind: 'open', path: databasePath } satisfies WriteThreadRequest)

  const post = (kind: Kind, batch: readonly unknown[]): Promise<number> => {
    if (broken) return writeLocally(kind, batch)
    const id = next++
    return new Promise<number>((resolve, reject) => {
      pending.set(id, { kind, batch, resolve, reject })
      // Audit rows cross packed (one text and two typed arrays, moved rather than copied: packed-rows.ts), not
      // cloned string by string; usage records are objects, cheaper to post as one JSON string than to clone.
      if (kind === 'audit') {
        const rows = packRows(batch as AuditRow[])
        worker.postMessage({ kind, id, rows } satisfies WriteThreadRequest, [rows.cells.buffer, rows.kinds.buffer])
      } else worker.postMessage({ kind, id, batch: JSON.stringify(batch) } satisfies WriteThreadRequest)
    })
  }
  return {
    writeAudit: (rows) => post('audit', rows),
    writeUsage: async (records) => {
      await post('usage', records)
    },
    close() {
      if (!broken) worker.terminate()
    },
  }
}
