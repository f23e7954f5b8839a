/**
 * @module Counters, the response cache and the change feed, for every backend: in-process for one replica, Redis
 * (`REDIS_URL`) when several replicas must share them.
 */
import { RedisClient } from 'bun'
import type { GatewayConfig } from '../config/schema.ts'
import type { Changes } from './changes.ts'
import { MemoryChanges } from './memory/changes.ts'
import { MemoryCounters } from './memory/counters.ts'
import { MemoryResponseCache } from './memory/response-cache.ts'
import { RedisChanges } from './redis/changes.ts'
import { RedisCounters } from './redis/counters.ts'
import { RedisResponseCache } from './redis/response-cache.ts'
import type { Counters, ResponseCache } from './types.ts'

export interface SharedCaches {
  counters: Counters
  responseCache: ResponseCache
  changes: Changes
  close(): Promise<void>
}

export function sharedCaches(config: GatewayConfig): SharedCaches {
  if (!config.redis.url)
    return { counters: new MemoryCounters(), responseCache: new MemoryResponseCache(config.cache.max_bytes), changes: new MemoryChanges(), close: async () => {} }
  const redis = new RedisClient(config.redis.url)
  const changes = RedisChanges.open(config.redis.url, redis)
  return {
    counters: new RedisCounters(redis),
    responseCache: new RedisResponseCache(redis),
    changes,
    async close() {
      await changes.close()
      redis.close()
    },
  }
}
