/**
 * @module The audit log's port on the request side: what a plugin hands an entry to (plugins/audit-sink). The
 * durable write path behind it (queue, spill files, write thread) is the stores' (src/stores/write-path/).
 */
import type { AuditLogEntry } from './entry.ts'
import type { BodyTexts } from './record.ts'

/** What request-side code needs: hand over an entry and move on. */
export interface AuditRecorder {
  /** Encodes the entry and queues it (or spills it); returns at once. `bodyTexts` spare re-serialising bodies. */
  record(entry: AuditLogEntry, bodyTexts?: BodyTexts): void
  /** An entry deliberately skipped (an authentication failure flood): counted, not stored. */
  recordSuppressed(): void
}
