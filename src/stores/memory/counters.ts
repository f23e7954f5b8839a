/**
 * @module In-process counters with expiry. JavaScript runs one callback at a time, so each operation is
 * atomic; expired keys are dropped when touched and swept once a minute.
 */
import type { Counters } from '../types.ts'

interface Counter {
  value: number
  expiresAt: number
}

export class MemoryCounters implements Counters {
  private readonly counters = new Map<string, Counter>()
  private readonly sweeper: ReturnType<typeof setInterval>

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000)
    this.sweeper.unref?.()
  }

  private live(key: string): Counter | undefined {
    const c = this.counters.get(key)
    if (c && c.expiresAt <= this.now()) {
      this.counters.delete(key)
      return undefined
    }
    return c
  }

  async addWithin(key: string, delta: number, limit: number, ttlMs: number) {
    const c = this.live(key)
    const current = c?.value ?? 0
    if (current + delta > limit) return { ok: false, value: current }
    if (c) c.value += delta
    else this.counters.set(key, { value: delta, expiresAt: this.now() + ttlMs })
    return { ok: true, value: current + delta }
  }

  async add(key: string, delta: number, ttlMs: number) {
    const c = this.live(key)
    if (c) {
      c.value += delta
      return c.value
    }
    this.counters.set(key, { value: delta, expiresAt: this.now() + ttlMs })
    return delta
  }

  async get(key: string) {
    return this.live(key)?.value ?? 0
  }

  private sweep(): void {
    const now = this.now()
    for (const [key, c] of this.counters) if (c.expiresAt <= now) this.counters.delete(key)
  }
}
