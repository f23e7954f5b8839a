/**
 * @module An in-memory copy of shared definitions (keys, workflows, limits, prices) that requests read without
 * waiting on a database. It loads once at start, reloads when the change feed says the topic changed, keeps the
 * last good copy when a load fails (an outage never empties it), and reconciles on a timer as a backstop for
 * lost messages, plus right after the feed reconnects. Loads never overlap: a change announced during a load
 * triggers one more load after it, since the running one may have read the data before the change.
 *
 * @example
 * const snapshot = new Snapshot({ name: 'limits', load: () => store.budgets(), apply: (b) => (budgets = b), changes, topic: 'limits', log })
 * await snapshot.start()
 */
import type { Logger } from '../log/logger.ts'
import type { Changes, ChangeTopic } from './changes.ts'

export interface SnapshotOptions<T> {
  /** For logs and /ready. */
  name: string
  load: () => Promise<T>
  /**
   * Installs a freshly loaded copy; runs synchronously, so requests see either the old or the new copy. A throw
   * counts as a failed load (the previous copy stays).
   */
  apply: (value: T) => void
  changes?: Changes
  topic?: ChangeTopic
  log: Logger
  /** Reload interval when nothing announced a change (default 30 s). */
  reconcileMs?: number
  /** Reload interval after a failed load (default 2 s). */
  retryMs?: number
}

export interface SnapshotStatus {
  name: string
  loaded: boolean
  /** False when the last load failed: requests are served from an older copy. */
  fresh: boolean
  /** When the last successful load started (ms): the copy holds the database as of then. */
  loadedAt: number | undefined
  lastError: string | undefined
}

export class Snapshot<T> {
  private loading: Promise<boolean> | undefined
  private again = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private unsubscribe: (() => void) | undefined
  private stopped = true
  private loaded = false
  private fresh = false
  private loadedAt: number | undefined
  private lastError: string | undefined
  private readonly reconcileMs: number
  private readonly retryMs: number

  constructor(private readonly options: SnapshotOptions<T>) {
    this.reconcileMs = options.reconcileMs ?? 30_000
    this.retryMs = options.retryMs ?? 2_000
  }

  /** Subscribes and loads; resolves after the first attempt, true when it succeeded. */
  async start(): Promise<boolean> {
    this.stopped = false
    const { changes, topic } = this.options
    if (changes && topic && !this.unsubscribe) {
      this.unsubscribe = changes.subscribe(topic, { changed: () => void this.refresh(), resync: () => void this.refresh() })
    }
    return this.refresh()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }

  /** Reloads now (or once more after the running load); resolves when the copy is at least as new as this call. */
  refresh(): Promise<boolean> {
    if (this.loading) {
      this.again = true // the running load loops once more, so its promise covers this call
      return this.loading
    }
    this.loading = this.run()
    return this.loading
  }

  /** `start` for a copy the gateway cannot run without: throws when the first load fails. */
  async startOrThrow(): Promise<void> {
    if (!(await this.start())) throw new Error(`could not load the ${this.options.name}: ${this.lastError}`)
  }

  /**
   * After a change made here: reloads now, throwing when that fails (the change must be visible when the caller
   * answers), and when something `changed` tells the other replicas through the change feed.
   */
  async reload(changed = false): Promise<void> {
    if (!(await this.refresh())) throw new Error(`could not reload the ${this.options.name}: ${this.lastError}`)
    const { changes, topic } = this.options
    if (changed && topic) await changes?.publish(topic)
  }

  status(): SnapshotStatus {
    return { name: this.options.name, loaded: this.loaded, fresh: this.fresh, loadedAt: this.loadedAt, lastError: this.lastError }
  }

  private async run(): Promise<boolean> {
    let ok = false
    try {
      do {
        this.again = false
        ok = await this.loadOnce()
      } while (this.again && !this.stopped)
    } finally {
      this.loading = undefined
      this.schedule(ok ? this.reconcileMs : this.retryMs)
    }
    return ok
  }

  private async loadOnce(): Promise<boolean> {
    // The copy holds the database as of the load's start: a change committed before it is in.
    const started = Date.now()
    try {
      this.options.apply(await this.options.load())
    } catch (err) {
      const message = (err as Error)?.message ?? String(err)
      if (this.fresh || this.lastError !== message)
        this.options.log.error({ snapshot: this.options.name, err: message, loaded_before: this.loaded }, 'could not reload; keeping the last good copy')
      this.fresh = false
      this.lastError = message
      return false
    }
    if (!this.fresh && this.lastError) this.options.log.info({ snapshot: this.options.name }, 'reloaded after failures')
    this.loaded = true
    this.fresh = true
    this.lastError = undefined
    this.loadedAt = started
    return true
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(() => void this.refresh(), ms)
    this.timer.unref?.()
  }
}
