/**
 * @module Batch writes through the audit write thread (store-worker.ts). The writer's queue, spill files and
 * retries stay on the main thread; only the SQLite work moves. If the thread cannot start or dies, writes fall
 * back to the main thread's own connection, so entries keep being stored either way.
 */
import type { Logger } from '../log/logger.ts'
import type { AuditLogEntry } from './entry.ts'
import type { WorkerReply, WorkerRequest } from './store-worker.ts'

export interface BatchWrites {
  writeBatch(entries: readonly AuditLogEntry[]): Promise<number>
  close(): void
}

/**
 * Where the thread's script is. In a source checkout it sits beside this file; in the compiled binary every
 * module shares the entry's URL, so the entry (src/main.ts) passes `new URL('./audit/store-worker.ts', …)`.
 */
export const defaultWorkerUrl = () => new URL('./store-worker.ts', import.meta.url).href

export function threadWrites(databasePath: string, fallback: BatchWrites, log: Logger, workerUrl = defaultWorkerUrl()): BatchWrites {
  const pending = new Map<number, { entries: readonly AuditLogEntry[]; resolve: (n: number) => void; reject: (e: Error) => void }>()
  let next = 0
  let broken = false
  const worker = new Worker(workerUrl)
  const giveUp = (reason: string) => {
    if (broken) return
    broken = true
    log.warn({ reason }, 'audit write thread unavailable; writing audit entries on the main thread')
    worker.terminate()
    for (const { entries, resolve, reject } of pending.values()) fallback.writeBatch(entries).then(resolve, reject)
    pending.clear()
  }
  worker.onmessage = (event: MessageEvent<WorkerReply>) => {
    const reply = event.data
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.ok) waiter.resolve(reply.written)
    else waiter.reject(new Error(reply.error))
  }
  worker.onerror = (event) => giveUp(event.message)
  worker.postMessage({ kind: 'open', path: databasePath } satisfies WorkerRequest)
  return {
    writeBatch(entries) {
      if (broken) return fallback.writeBatch(entries)
      const id = next++
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { entries, resolve, reject })
        // One JSON string per batch: far cheaper to post than a structured clone of many nested objects.
        worker.postMessage({ kind: 'write', id, entries: JSON.stringify(entries) } satisfies WorkerRequest)
      })
    },
    close() {
      if (!broken) worker.terminate()
    },
  }
}
