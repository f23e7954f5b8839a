/**
 * @module The response cache in Redis, shared by every replica. Redis owns expiry (PX) and eviction (configure
 * `maxmemory` with an LRU policy); hits and misses are counted per process.
 */
import type { RedisClient } from 'bun'
import type { CachedResponse, ResponseCache, ResponseCacheStats } from '../types.ts'

export class RedisResponseCache implements ResponseCache {
  private hits = 0
  private misses = 0

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'gw:cache:',
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    const raw = await this.redis.get(this.prefix + key)
    if (raw === null) {
      this.misses++
      return undefined
    }
    this.hits++
    return JSON.parse(raw) as CachedResponse
  }

  async set(key: string, value: CachedResponse, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, JSON.stringify(value), 'PX', Math.max(1, Math.ceil(ttlMs)))
  }

  /** Entry and byte counts live in Redis (`INFO memory`); -1 says they are not tracked here. */
  stats(): ResponseCacheStats {
    return { entries: -1, bytes: -1, maxBytes: -1, hits: this.hits, misses: this.misses, evictions: -1 }
  }
}
