/**
 * @module What the audit and usage batch writes report: how long each took and which failed, transient or not.
 * Each backend times its batch inserts through its `StoreEvents` (the writers in front of them stay unaware), and
 * whoever wants to know attaches a `StoreObserver` later (the metrics, src/observability/metrics.ts): the stores
 * are opened before the gateway that observes them.
 */
import { isTransientWriteError } from './errors.ts'
import type { StoreHealth } from './types.ts'

/** The writes observed: one batch of audit entries or of usage records. */
export type ObservedStore = 'audit' | 'usage'
export type StoreBackend = StoreHealth['backend']
/** `transient` may succeed later unchanged and is retried (src/stores/errors.ts); `permanent` is the data's own fault. */
export type StoreErrorKind = 'transient' | 'permanent'

export interface StoreObserver {
  batchWritten(store: ObservedStore, backend: StoreBackend, seconds: number): void
  batchFailed(store: ObservedStore, backend: StoreBackend, kind: StoreErrorKind): void
}

export class StoreEvents {
  private observers: readonly StoreObserver[] = []

  /** Starts reporting to `observer`; returns the function that stops it. */
  attach(observer: StoreObserver): () => void {
    this.observers = [...this.observers, observer]
    return () => {
      this.observers = this.observers.filter((o) => o !== observer)
    }
  }

  /** Runs one batch write, reporting its duration or its failure; the result or the error passes through unchanged. */
  async time<T>(store: ObservedStore, backend: StoreBackend, write: () => Promise<T>): Promise<T> {
    if (this.observers.length === 0) return write()
    const started = performance.now()
    try {
      const result = await write()
      const seconds = (performance.now() - started) / 1000
      for (const o of this.observers) o.batchWritten(store, backend, seconds)
      return result
    } catch (err) {
      const kind = isTransientWriteError(err) ? 'transient' : 'permanent'
      for (const o of this.observers) o.batchFailed(store, backend, kind)
      throw err
    }
  }
}
