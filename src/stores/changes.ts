/**
 * @module The change feed: how one replica tells the others that shared definitions changed, so each reloads its
 * in-memory snapshot (src/stores/snapshot.ts) within a second instead of waiting for the periodic reconcile.
 * Messages carry only the topic: a receiver reloads the whole set, so a lost or duplicated message can never
 * leave a replica with a half-applied change, and the reconcile repairs whatever a lost message missed.
 *
 * Implementations: in-process (one replica), PostgreSQL LISTEN/NOTIFY, Redis pub/sub; same file name in each
 * backend folder (`changes.ts`).
 *
 * A topic per store that admin calls write. Virtual models have none: they come from the configuration file
 * only (the service description's `virtual_models` list), which every replica reads at start-up.
 */

export const CHANGE_TOPICS = ['keys', 'workflows', 'limits', 'prices', 'mcp'] as const
export type ChangeTopic = (typeof CHANGE_TOPICS)[number]

export interface ChangeListener {
  /** Another replica (or this one) changed the topic's data. */
  changed(): void
  /** The feed (re)connected: messages may have been missed, so reload. */
  resync(): void
}

export interface Changes {
  /**
   * Tells every subscriber on every replica, this one included. Resolves false instead of throwing when the feed
   * is unreachable: the change is stored already, and the other replicas' reconcile will pick it up.
   */
  publish(topic: ChangeTopic): Promise<boolean>
  /** Returns the function that ends the subscription. */
  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void
  /** Which transport carries the feed (for /ready and logs). */
  readonly kind: 'memory' | 'postgres' | 'redis' | 'workers'
  close(): Promise<void>
}

/** Routes messages to listeners by topic; each transport owns one and feeds it what it receives. */
export class ChangeFanout {
  private readonly listeners = new Map<ChangeTopic, Set<ChangeListener>>()

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    let set = this.listeners.get(topic)
    if (!set) this.listeners.set(topic, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  /** A received message; payloads that are not a known topic are ignored (another release's topic). */
  deliver(payload: string): void {
    for (const l of this.listeners.get(payload as ChangeTopic) ?? []) l.changed()
  }

  resyncAll(): void {
    for (const set of this.listeners.values()) for (const l of set) l.resync()
  }
}
