/**
 * The Redis stores against a real redis-server: atomic counters across clients, expiry, the shared cache.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { RedisCounters } from '../../src/stores/redis/counters.ts'
import { RedisResponseCache } from '../../src/stores/redis/response-cache.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'
import { redisAvailable, startRedis, type RunningRedis } from '../helpers/redis-server.ts'

const available = redisAvailable()
let redis: RunningRedis
const clients: RedisClient[] = []
const client = () => {
  const c = new RedisClient(redis.url)
  clients.push(c)
  return c
}

beforeAll(async () => {
  if (available) redis = await startRedis()
})
afterAll(async () => {
  for (const c of clients) c.close()
  await redis?.stop()
})

describe.skipIf(!available)('redis stores', () => {
  test('addWithin is atomic across replicas: exactly `limit` units are granted', async () => {
    const replicas = [new RedisCounters(client()), new RedisCounters(client()), new RedisCounters(client())]
    const results = await Promise.all(Array.from({ length: 90 }, (_, i) => replicas[i % 3]!.addWithin('race', 1, 25, 60_000)))
    expect(results.filter((r) => r.ok)).toHaveLength(25)
    expect(await replicas[0]!.get('race')).toBe(25)
  })

  test('add adjusts, and keys expire with their TTL', async () => {
    const counters = new RedisCounters(client())
    expect(await counters.add('adjust', 10, 60_000)).toBe(10)
    expect(await counters.add('adjust', -4, 60_000)).toBe(6)
    await counters.addWithin('short', 1, 5, 50)
    await Bun.sleep(120)
    expect(await counters.get('short')).toBe(0)
  })

  test('the response cache is shared between clients and expires', async () => {
    const a = new RedisResponseCache(client())
    const b = new RedisResponseCache(client())
    await a.set('k', { body: '{"ok":true}', storedAt: 1 }, 80)
    expect(await b.get('k')).toEqual({ body: '{"ok":true}', storedAt: 1 })
    await Bun.sleep(150)
    expect(await b.get('k')).toBeUndefined()
    expect(b.stats()).toMatchObject({ hits: 1, misses: 1 })
  })
})

// As docs/scale-out.md runs replicas: one PostgreSQL (so one set of workflow versions, which cache keys name) and one Redis.
describe.skipIf(!available || !postgresAvailable())('two gateway replicas on one PostgreSQL and one Redis', () => {
  test('a rate limit and the response cache are shared', async () => {
    const { startGateway, writeGatewayYaml } = await import('../helpers/gateway.ts')
    const { startMockOpenAI } = await import('../helpers/mock-openai-upstream.ts')
    const OpenAI = (await import('openai')).default
    const mock = startMockOpenAI()
    const yaml = writeGatewayYaml(
      `workflows:\n  - name: default\n    features: { budget: true, cache: true }\nrate_limits:\n  - { scope: { user_path: /shared }, requests_per_minute: 3 }\n`,
    )
    const database = await (await sharedPostgres()).freshDatabase()
    const env = {
      GATEWAY_CONFIG: yaml,
      GATEWAY_MASTER_KEY: 'replica-master-key-0123456789abcdef',
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: mock.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database,
    }
    const [one, two] = [await startGateway(env), await startGateway(env)]
    try {
      const clients = [one, two].map(
        (g) => new OpenAI({ apiKey: 'replica-master-key-0123456789abcdef', baseURL: g.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-user-path': '/shared/app' } }),
      )
      const ask = (i: number, text: string) => clients[i % 2]!.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: text }] }).withResponse()
      const first = await ask(0, 'echo:shared cache')
      expect(first.response.headers.get('x-cache')).toBe('MISS')
      const second = await ask(1, 'echo:shared cache')
      expect(second.response.headers.get('x-cache')).toBe('HIT')
      await ask(0, 'echo:third call')
      await ask(1, 'echo:fourth call')
      const refused = await ask(0, 'echo:fifth call').catch((e) => e)
      expect(refused.status).toBe(429)
    } finally {
      await one.stop()
      await two.stop()
      mock.stop()
    }
  })
})
