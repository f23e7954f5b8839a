/**
 * The change feed across processes' connections, against real servers: PostgreSQL LISTEN/NOTIFY and Redis
 * pub/sub deliver a topic to every subscriber, and a subscriber whose connection dropped is told to resync
 * once the server is back (messages sent meanwhile are lost, so it must reload).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RedisClient, SQL } from 'bun'
import type { ChangeTopic, Changes } from '../../src/stores/changes.ts'
import { PostgresChanges } from '../../src/stores/postgres/changes.ts'
import { RedisChanges } from '../../src/stores/redis/changes.ts'
import { postgresAvailable, startPostgres, type RunningPostgres } from '../helpers/postgres-server.ts'
import { redisAvailable, startRedis } from '../helpers/redis-server.ts'

const cleanup: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

function recorder(changes: Changes, topic: ChangeTopic) {
  const seen = { changed: 0, resync: 0 }
  changes.subscribe(topic, { changed: () => seen.changed++, resync: () => seen.resync++ })
  return seen
}

async function until(check: () => boolean, ms = 10_000): Promise<number> {
  const start = performance.now()
  while (!check()) {
    if (performance.now() - start > ms) throw new Error('timed out')
    await Bun.sleep(5)
  }
  return performance.now() - start
}

describe.skipIf(!postgresAvailable())('PostgreSQL LISTEN/NOTIFY change feed', () => {
  // A cluster of its own: one test stops and restarts it.
  let pg: RunningPostgres
  beforeAll(async () => {
    pg = await startPostgres()
    cleanup.push(() => pg.destroy())
  }, 60_000)

  test('a topic published by one replica reaches every replica, other topics do not', async () => {
    const url = await pg.freshDatabase()
    const [a, b] = [new SQL(url, { max: 2 }), new SQL(url, { max: 2 })]
    cleanup.push(
      () => a.close(),
      () => b.close(),
    )
    const [feedA, feedB] = [await PostgresChanges.open(a), await PostgresChanges.open(b)]
    cleanup.push(
      () => feedA.close(),
      () => feedB.close(),
    )
    const keysA = recorder(feedA, 'keys')
    const keysB = recorder(feedB, 'keys')
    const limitsB = recorder(feedB, 'limits')
    expect(await feedA.publish('keys')).toBe(true)
    const ms = await until(() => keysB.changed === 1 && keysA.changed === 1)
    expect(ms).toBeLessThan(1000)
    expect(limitsB.changed).toBe(0)
  })

  test('after PostgreSQL restarts, subscribers resync and messages flow again', async () => {
    const url = await pg.freshDatabase()
    const sql = new SQL(url, { max: 2 })
    cleanup.push(() => sql.close())
    const feed = await PostgresChanges.open(sql)
    cleanup.push(() => feed.close())
    const seen = recorder(feed, 'workflows')
    expect(await feed.publish('workflows')).toBe(true)
    await until(() => seen.changed === 1)
    await pg.stop()
    expect(await feed.publish('workflows')).toBe(false)
    await pg.start()
    await until(() => seen.resync >= 1, 30_000)
    await feed.publish('workflows')
    await until(() => seen.changed >= 2)
  }, 60_000)
})

describe.skipIf(!redisAvailable())('Redis pub/sub change feed', () => {
  test('a topic reaches every replica; a reconnect asks for a resync and re-subscribes', async () => {
    const redis = await startRedis()
    const port = redis.url.split(':').pop()!
    const clients = [new RedisClient(redis.url), new RedisClient(redis.url)]
    const [feedA, feedB] = [RedisChanges.open(redis.url, clients[0]!), RedisChanges.open(redis.url, clients[1]!)]
    await Promise.all([feedA.ready, feedB.ready])
    const seenB = recorder(feedB, 'prices')
    expect(await feedA.publish('prices')).toBe(true)
    await until(() => seenB.changed === 1)
    await redis.stop()
    const again = Bun.spawn(['redis-server', '--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' })
    cleanup.push(async () => {
      again.kill()
      await again.exited
    })
    const before = seenB.resync
    await until(() => seenB.resync > before, 30_000)
    expect(await feedA.publish('prices')).toBe(true)
    await until(() => seenB.changed >= 2)
    for (const c of clients) c.close()
    await feedA.close()
    await feedB.close()
  }, 60_000)
})
