/**
 * @module What the primary of `GATEWAY_WORKERS` (src/workers/primary.ts) keeps for its workers: the rate-limit and
 * budget counters (in-process, exact across workers) and, on the embedded SQLite file, the one writer of the file
 * (src/stores/sqlite/shared-writes.ts); on a server database each worker writes its own batches. Beside open.ts,
 * the other place outside a backend folder that knows which backends exist.
 */
import type { GatewayConfig } from '../config/schema.ts'
import type { Logger } from '../log/logger.ts'
import { MemoryCounters } from './memory/counters.ts'
import type { Counters } from './types.ts'
import type { EncodedBatchWrites } from './write-path/write-thread.ts'

/** Batches the workers encoded, stored as they are; `close` at the primary's exit. */
export interface SharedWrites extends EncodedBatchWrites {
  close(): void
}

export interface PrimaryStores {
  counters: Counters
  /** The one writer of an embedded database; undefined when each worker writes its own (a database server). */
  writes: SharedWrites | undefined
}

export async function openPrimaryStores(config: GatewayConfig, log: Logger, writeThreadUrl?: string): Promise<PrimaryStores> {
  const counters = new MemoryCounters()
  if (config.database.url) return { counters, writes: undefined }
  const { openSqliteSharedWrites } = await import('./sqlite/shared-writes.ts')
  return { counters, writes: openSqliteSharedWrites(config, log, writeThreadUrl) }
}
