/**
 * @module In-process response cache: LRU bounded by bytes (the JSON text length), with a TTL per entry. A Map
 * keeps insertion order, so re-inserting on a hit makes the first key the least recently used.
 */
import type { CachedResponse, ResponseCache, ResponseCacheStats } from '../types.ts'

interface Slot {
  value: CachedResponse
  bytes: number
  expiresAt: number
}

export class MemoryResponseCache implements ResponseCache {
  private readonly slots = new Map<string, Slot>()
  private bytes = 0
  private hits = 0
  private misses = 0
  private evictions = 0

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<CachedResponse | undefined> {
    const slot = this.slots.get(key)
    if (!slot || slot.expiresAt <= this.now()) {
      if (slot) this.remove(key, slot)
      this.misses++
      return undefined
    }
    this.slots.delete(key)
    this.slots.set(key, slot)
    this.hits++
    return slot.value
  }

  async set(key: string, value: CachedResponse, ttlMs: number): Promise<void> {
    const bytes = value.body.length + key.length
    if (bytes > this.maxBytes) return
    const existing = this.slots.get(key)
    if (existing) this.remove(key, existing)
    this.slots.set(key, { value, bytes, expiresAt: this.now() + ttlMs })
    this.bytes += bytes
    for (const [oldest, slot] of this.slots) {
      if (this.bytes <= this.maxBytes) break
      this.remove(oldest, slot)
      this.evictions++
    }
  }

  stats(): ResponseCacheStats {
    return { entries: this.slots.size, bytes: this.bytes, maxBytes: this.maxBytes, hits: this.hits, misses: this.misses, evictions: this.evictions }
  }

  private remove(key: string, slot: Slot): void {
    this.slots.delete(key)
    this.bytes -= slot.bytes
  }
}
