/**
 * @module Batch writes through the write thread (src/stores/write-thread-worker.ts). The queues, spill files and retries stay
 * with their owners on the main thread (the audit writer, the usage service); only the database work moves. If the
 * thread cannot start or dies, writes fall back to the main thread's own connection, so rows keep being stored
 * either way.
 */
import type { AuditRow } from '../../audit/record.ts'
import type { Logger } from '../../log/logger.ts'
import type { UsageRecord } from '../../usage/record.ts'
import { type PackedRows, packRows, unpackRows } from './packed-rows.ts'
import type { WriteThreadReply, WriteThreadRequest } from './thread-protocol.ts'

/** A batch the thread's database refused or could not be reached for (`unreachable`: PostgreSQL down). */
export class WriteThreadError extends Error {
  override name = 'WriteThreadError'
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message)
  }
}

export interface BatchWrites {
  /** Resolves with the number of rows stored (replays of stored ones are skipped). */
  writeAudit(rows: readonly AuditRow[]): Promise<number>
  writeUsage(records: readonly UsageRecord[]): Promise<void>
  /**
   * Retention: deletes at most `batch` audit entries older than `cutoffMs`; resolves with how many. Through the
   * write thread, so the deletes (rows, indexes, full-text index: about 100 µs of CPU per entry at 500,000
   * entries) never run on the thread serving requests.
   */
  deleteAuditOlderThan?(cutoffMs: number, batch: number): Promise<number>
  close(): void
}

/**
 * Batches another process already encoded (a worker of `GATEWAY_WORKERS`, src/workers/link.ts): audit rows
 * packed (packed-rows.ts), usage records as the JSON text of an array. They go to the thread as they are, so the
 * process in between (the primary) never decodes and re-encodes them.
 */
export interface EncodedBatchWrites {
  writeEncodedAudit(rows: PackedRows): Promise<number>
  writeEncodedUsage(json: string): Promise<number>
}

/**
 * Where the thread's script is. In a source checkout it sits beside this file; in the compiled binary every
 * module shares the entry's URL, so the entry (src/main.ts) passes `new URL('./stores/write-thread-worker.ts', …)`.
 */
const defaultWriteThreadUrl = () => new URL('../write-thread-worker.ts', import.meta.url).href

type Kind = 'audit' | 'usage' | 'expire'
/** A batch as the caller gave it, or already encoded (EncodedBatchWrites); for `expire`, the retention delete's bounds. */
type Batch = readonly unknown[] | PackedRows | string | Expiry
interface Expiry {
  cutoffMs: number
  batch: number
}
interface Waiter {
  kind: Kind
  batch: Batch
  resolve: (written: number) => void
  reject: (error: Error) => void
}

/** `target`: the database the thread opens, as the thread's entry reads it (`WriteThreadTarget` there). */
export function startWriteThread(target: unknown, fallback: BatchWrites, log: Logger, workerUrl = defaultWriteThreadUrl()): BatchWrites & EncodedBatchWrites {
  const pending = new Map<number, Waiter>()
  let next = 0
  let broken = false
  const worker = new Worker(workerUrl)
  const writeLocally = (kind: Kind, encoded: Batch): Promise<number> => {
    if (kind === 'expire') {
      const { cutoffMs, batch } = encoded as Expiry
      return fallback.deleteAuditOlderThan ? fallback.deleteAuditOlderThan(cutoffMs, batch) : Promise.reject(new Error('no connection to delete expired audit entries on'))
    }
    const batch = typeof encoded === 'string' ? (JSON.parse(encoded) as unknown[]) : Array.isArray(encoded) ? encoded : unpackRows(encoded as PackedRows)
    return kind === 'audit' ? fallback.writeAudit(batch as AuditRow[]) : fallback.writeUsage(batch as UsageRecord[]).then(() => batch.length)
  }
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
    if ('broken' in reply) return giveUp(reply.broken)
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.ok) waiter.resolve(reply.written)
    else waiter.reject(new WriteThreadError(reply.error, reply.unreachable))
  }
  worker.onerror = (event) => giveUp(event.message)
  worker.postMessage({ kind: 'open', target } satisfies WriteThreadRequest)

  const post = (kind: Kind, batch: Batch): Promise<number> => {
    if (broken) return writeLocally(kind, batch)
    const id = next++
    return new Promise<number>((resolve, reject) => {
      pending.set(id, { kind, batch, resolve, reject })
      if (kind === 'expire') {
        worker.postMessage({ kind, id, ...(batch as Expiry) } satisfies WriteThreadRequest)
        return
      }
      // Audit rows cross packed (one text and two typed arrays, moved rather than copied: packed-rows.ts), not
      // cloned string by string; usage records are objects, cheaper to post as one JSON string than to clone.
      // Rows packed elsewhere are copied, not moved: they stay whole for the fallback should the thread die.
      if (kind === 'audit' && !Array.isArray(batch)) worker.postMessage({ kind, id, rows: batch as PackedRows } satisfies WriteThreadRequest)
      else if (kind === 'audit') {
        const rows = packRows(batch as AuditRow[])
        worker.postMessage({ kind, id, rows } satisfies WriteThreadRequest, [rows.cells.buffer, rows.kinds.buffer])
      } else worker.postMessage({ kind, id, batch: typeof batch === 'string' ? batch : JSON.stringify(batch) } satisfies WriteThreadRequest)
    })
  }
  return {
    writeAudit: (rows) => post('audit', rows),
    writeUsage: async (records) => {
      await post('usage', records)
    },
    writeEncodedAudit: (rows) => post('audit', rows),
    writeEncodedUsage: (json) => post('usage', json),
    deleteAuditOlderThan: (cutoffMs, batch) => post('expire', { cutoffMs, batch }),
    close() {
      if (!broken) worker.terminate()
    },
  }
}
