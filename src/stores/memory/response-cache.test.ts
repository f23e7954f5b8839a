import { expect, test } from 'bun:test'
import { MemoryResponseCache } from './response-cache.ts'

test('bounded by bytes: the least recently used entry goes first', async () => {
  const cache = new MemoryResponseCache(100)
  const entry = (n: number) => ({ body: 'x'.repeat(n), storedAt: 0 })
  await cache.set('a', entry(40), 1000)
  await cache.set('b', entry(40), 1000)
  expect(await cache.get('a')).toBeDefined() // a is now the most recently used
  await cache.set('c', entry(40), 1000)
  expect(await cache.get('b')).toBeUndefined()
  expect(await cache.get('a')).toBeDefined()
  expect(await cache.get('c')).toBeDefined()
  expect(cache.stats()).toMatchObject({ entries: 2, evictions: 1 })
  expect(cache.stats().bytes).toBeLessThanOrEqual(100)
  await cache.set('huge', entry(500), 1000)
  expect(await cache.get('huge')).toBeUndefined()
})

test('entries expire after their TTL', async () => {
  let now = 0
  const cache = new MemoryResponseCache(1000, () => now)
  await cache.set('k', { body: '{}', storedAt: 0 }, 50)
  expect(await cache.get('k')).toBeDefined()
  now = 60
  expect(await cache.get('k')).toBeUndefined()
  expect(cache.stats().entries).toBe(0)
})
