/**
 * @module What the primary process and its workers say to each other over the IPC channel (`GATEWAY_WORKERS`).
 * Workers ask (`call`, answered by a `reply` with the same id) or tell (`publish`, `release`); the primary
 * tells every worker about changes (`changed`) and asks each for its metrics (`collect-metrics`, answered by `metrics`).
 */
import type { MetricsJson } from '../observability/group-metrics.ts'
import type { ChangeTopic } from '../stores/changes.ts'
import type { PackedRows } from '../stores/write-path/packed-rows.ts'

/** Set by the primary in each worker's environment: the worker's slot, 0 to N-1 (a replacement keeps the slot). */
export const WORKER_INDEX_ENV = 'GATEWAY_WORKER_INDEX'

export type WorkerCall =
  | { op: 'addWithin'; key: string; delta: number; limit: number; ttlMs: number }
  | { op: 'add'; key: string; delta: number; ttlMs: number }
  | { op: 'get'; key: string }
  // A batch, encoded by the worker and handed to the primary's write thread as it is (EncodedBatchWrites):
  // audit rows packed (one text and two typed arrays), usage records as JSON text; `count` is the number of them.
  | { op: 'audit'; packed: PackedRows; count: number }
  | { op: 'usage'; json: string; count: number }
  | { op: 'lease'; name: string }
  // The whole group's metrics, for the worker a scrape reached (src/observability/group-metrics.ts).
  | { op: 'metrics' }

export type WorkerMessage = { t: 'call'; id: number; call: WorkerCall } | { t: 'publish'; topic: ChangeTopic } | { t: 'release'; name: string } | WorkerMetricsMessage

export type PrimaryMessage =
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: string }
  | { t: 'changed'; topic: ChangeTopic }
  | CollectMetricsMessage

/** The primary asks each worker for its metrics; the worker answers with the same id. */
export type CollectMetricsMessage = { t: 'collect-metrics'; id: number }
export type WorkerMetricsMessage = { t: 'metrics'; id: number; metrics: MetricsJson }

/** This process's worker slot, when it was started by a primary. */
export function workerIndex(env: Record<string, string | undefined> = process.env): number | undefined {
  const raw = env[WORKER_INDEX_ENV]
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
}
