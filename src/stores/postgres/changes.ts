/**
 * @module The change feed over PostgreSQL LISTEN/NOTIFY: one channel, the topic as payload. Bun's client keeps
 * the LISTEN on a dedicated connection and re-subscribes after it drops; every re-subscription after the first
 * asks the listeners to resync, since notifications sent meanwhile are lost.
 */
import type { SQL } from 'bun'
import { ChangeFanout, type ChangeListener, type Changes, type ChangeTopic } from '../changes.ts'

export const CHANGES_CHANNEL = 'gateway_changes'

export class PostgresChanges implements Changes {
  readonly kind = 'postgres'
  private readonly fanout = new ChangeFanout()
  private subscription: SQL.ListenSubscription | undefined
  private listens = 0

  private constructor(private readonly sql: SQL) {}

  /** Resolves once the LISTEN is acknowledged; rejects when PostgreSQL cannot be reached at all. */
  static async open(sql: SQL, onError: (err: unknown) => void = () => {}): Promise<PostgresChanges> {
    const changes = new PostgresChanges(sql)
    changes.subscription = await sql.listen(
      CHANGES_CHANNEL,
      (payload) => {
        try {
          changes.fanout.deliver(payload)
        } catch (err) {
          onError(err)
        }
      },
      () => {
        if (changes.listens++ > 0) changes.fanout.resyncAll()
      },
    )
    return changes
  }

  async publish(topic: ChangeTopic): Promise<boolean> {
    try {
      await this.sql.notify(CHANGES_CHANNEL, topic)
      return true
    } catch {
      return false
    }
  }

  subscribe(topic: ChangeTopic, listener: ChangeListener): () => void {
    return this.fanout.subscribe(topic, listener)
  }

  async close(): Promise<void> {
    await this.subscription?.unlisten().catch(() => {})
    this.subscription = undefined
  }
}
