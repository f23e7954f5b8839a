/**
 * @module The contract of counters and the response cache, the same assertions for the in-process and the Redis
 * implementations (and any later one): one line each in contract.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import type { Counters, ResponseCache } from '../../src/stores/types.ts'

/** `make` returns counters; keys are random, so runs on a shared server stay apart. */
export function countersContract(backend: string, make: () => Promise<Counters> | Counters): void {
  describe(`counters contract: ${backend}`, () => {
    const key = (name: string) => `${name}:${crypto.randomUUID()}`

    test('addWithin grants exactly `limit` units to concurrent callers', async () => {
      const counters = await make()
      const k = key('race')
      const results = await Promise.all(Array.from({ length: 60 }, () => counters.addWithin(k, 1, 25, 60_000)))
      expect(results.filter((r) => r.ok)).toHaveLength(25)
      expect(results.filter((r) => !r.ok).every((r) => r.value === 25)).toBe(true)
      expect(await counters.get(k)).toBe(25)
    })

    test('a delta larger than what is left is refused whole; add adjusts either way', async () => {
      const counters = await make()
      const k = key('adjust')
      expect(await counters.addWithin(k, 8, 10, 60_000)).toEqual({ ok: true, value: 8 })
      expect(await counters.addWithin(k, 3, 10, 60_000)).toEqual({ ok: false, value: 8 })
      expect(await counters.add(k, -5, 60_000)).toBe(3)
      expect(await counters.get(key('unknown'))).toBe(0)
    })

    test('a counter expires with the TTL set when it was created', async () => {
      const counters = await make()
      const k = key('short')
      await counters.addWithin(k, 1, 5, 60)
      expect(await counters.get(k)).toBe(1)
      await Bun.sleep(150)
      expect(await counters.get(k)).toBe(0)
    })
  })
}

export function responseCacheContract(backend: string, make: () => Promise<ResponseCache> | ResponseCache): void {
  describe(`response cache contract: ${backend}`, () => {
    test('a stored response reads back whole until its TTL passes; hits and misses are counted', async () => {
      const cache = await make()
      const k = `k:${crypto.randomUUID()}`
      const body = JSON.stringify({ object: 'chat.completion', choices: [{ message: { content: 'déjà vu 🙂' } }] })
      expect(await cache.get(k)).toBeUndefined()
      await cache.set(k, { body, storedAt: 123 }, 80)
      expect(await cache.get(k)).toEqual({ body, storedAt: 123 })
      await Bun.sleep(160)
      expect(await cache.get(k)).toBeUndefined()
      expect(cache.stats()).toMatchObject({ hits: 1, misses: 2 })
    })
  })
}
