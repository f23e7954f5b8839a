/**
 * @module The change feed of a single replica: publishing delivers to this process's subscribers, on a later
 * turn of the event loop (as the networked feeds do), so a publisher never re-enters its own reload.
 */
import { ChangeFanout, type ChangeListener, type Changes, type ChangeTopic } from '../changes.ts'

export class MemoryChanges implements Changes {
  readonly kind = 'memory'
  private readonly fanout = new ChangeFanout()

  async publish(topic: ChangeTopic): Promise<boolean> {
    queueMicrotask(() => this.fanout.deliver(topic))
    return true
  }

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    return this.fanout.subscribe(topic, listener)
  }

  async close(): Promise<void> {}
}
