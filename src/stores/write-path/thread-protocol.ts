/**
 * @module What the main thread and the write thread (src/stores/write-thread-worker.ts) say to each other, and what
 * a backend's half of the thread (`src/stores/<backend>/thread-writes.ts`) provides. The thread's first message
 * names the database it opens (`open`, a backend's own target); the rest are batches.
 */
import type { PackedRows } from './packed-rows.ts'
import type { BatchWrites } from './write-thread.ts'

/** Audit rows arrive packed (packed-rows.ts); usage records as the JSON text of an array. */
export type WriteThreadRequest =
  | { kind: 'open'; target: unknown }
  | { kind: 'audit'; id: number; rows: PackedRows }
  | { kind: 'usage'; id: number; batch: string }
  /** Retention: delete at most `batch` audit entries older than `cutoffMs` (the reply's `written` is how many). */
  | { kind: 'expire'; id: number; cutoffMs: number; batch: number }
/** `unreachable`: the database could not be reached (PostgreSQL down), as opposed to refusing the batch. `broken`: the thread could not open its database. */
export type WriteThreadReply = { id: number; ok: true; written: number } | ({ id: number; ok: false } & WriteFailure) | { broken: string }

export interface WriteFailure {
  /** The error's text, with its code where it has one: the writers classify errors by it (isTransientWriteError). */
  error: string
  unreachable: boolean
}

/**
 * A backend's half of the thread (`<backend>/thread-writes.ts`): the batch writes the main thread asks for
 * (`deleteAuditOlderThan` only where the thread does retention: SQLite's row deletes), and how a failure is told.
 */
export interface ThreadWrites extends Omit<BatchWrites, 'close'> {
  failure(error: unknown): WriteFailure
}
