/**
 * @module Picks the store implementations for this process: the embedded SQLite file always; for counters and
 * the response cache either in-process ones (one machine) or Redis (several replicas, `REDIS_URL`).
 */
import { RedisClient } from 'bun'
import type { GatewayConfig } from '../config/schema.ts'
import { MemoryChanges } from './memory/changes.ts'
import { MemoryCounters } from './memory/counters.ts'
import { MemoryResponseCache } from './memory/response-cache.ts'
import { RedisChanges } from './redis/changes.ts'
import { RedisCounters } from './redis/counters.ts'
import { RedisResponseCache } from './redis/response-cache.ts'
import { applyMigrations, openSqlite, type Migration } from './sqlite/client.ts'
import type { Stores } from './types.ts'

export function openStores(config: GatewayConfig, migrations: readonly Migration[]): Stores {
  const sqlite = openSqlite(config.database.path)
  applyMigrations(sqlite, migrations)
  if (!config.redis.url) {
    return { sqlite, responseCache: new MemoryResponseCache(config.cache.max_bytes), counters: new MemoryCounters(), changes: new MemoryChanges(), close: () => sqlite.close() }
  }
  const redis = new RedisClient(config.redis.url)
  const changes = RedisChanges.open(config.redis.url, redis)
  return {
    sqlite,
    responseCache: new RedisResponseCache(redis),
    counters: new RedisCounters(redis),
    changes,
    close: () => {
      void changes.close()
      redis.close()
      sqlite.close()
    },
  }
}
