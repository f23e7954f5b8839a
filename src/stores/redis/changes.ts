/**
 * @module The change feed over Redis pub/sub: one channel, the topic as message. A subscribed connection can do
 * nothing else, so the feed has a connection of its own. Bun's client reconnects on its own but does not restore
 * subscriptions, so each reconnect subscribes again and asks the listeners to resync (messages published
 * meanwhile are lost); should the client give up reconnecting, a watchdog starts it again.
 */
import { RedisClient } from 'bun'
import { ChangeFanout, type ChangeListener, type Changes, type ChangeTopic } from '../changes.ts'

export const CHANGES_CHANNEL = 'gw:changes'
const WATCHDOG_MS = 5_000

export class RedisChanges implements Changes {
  readonly kind = 'redis'
  private readonly fanout = new ChangeFanout()
  private readonly subscriber: RedisClient
  private readonly watchdog: ReturnType<typeof setInterval>
  private connects = 0
  private closed = false

  private constructor(
    url: string,
    private readonly publisher: RedisClient,
  ) {
    this.subscriber = new RedisClient(url)
    this.subscriber.onconnect = () => {
      if (this.connects++ === 0) return
      this.subscribe_().then(
        () => this.fanout.resyncAll(),
        () => {},
      )
    }
    this.watchdog = setInterval(() => {
      if (!this.closed && !this.subscriber.connected) this.subscriber.connect().catch(() => {})
    }, WATCHDOG_MS)
    this.watchdog.unref?.()
  }

  /**
   * `publisher` is a shared client; the subscriber connection is opened here, in the background (`ready`
   * resolves once subscribed; the listeners are asked to resync then, in case they loaded before it).
   */
  static open(url: string, publisher: RedisClient): RedisChanges {
    const changes = new RedisChanges(url, publisher)
    changes.ready = changes.subscribe_().then(
      () => changes.fanout.resyncAll(),
      () => {}, // the watchdog and onconnect retry; the reconcile covers the gap
    )
    return changes
  }

  ready: Promise<void> = Promise.resolve()

  private readonly onMessage = (message: string) => this.fanout.deliver(message)

  /** Drops a listener the client may have kept across the reconnect, so a message is never delivered twice. */
  private async subscribe_(): Promise<void> {
    try {
      await this.subscriber.unsubscribe(CHANGES_CHANNEL, this.onMessage)
    } catch {
      // not subscribed (the usual case): nothing to drop
    }
    await this.subscriber.subscribe(CHANGES_CHANNEL, this.onMessage)
  }

  async publish(topic: ChangeTopic): Promise<boolean> {
    try {
      await this.publisher.publish(CHANGES_CHANNEL, topic)
      return true
    } catch {
      return false
    }
  }

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    return this.fanout.subscribe(topic, listener)
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.watchdog)
    this.subscriber.close()
  }
}
