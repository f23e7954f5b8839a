/**
 * How long a revocation takes to reach the other replica: two gateway processes on one throwaway PostgreSQL and
 * one Redis; each round creates a key on A, waits until B accepts it, revokes it on A and polls B (every 2 ms)
 * until it refuses the key with 401 `invalid_api_key`. Prints p50/p95/p99/max in milliseconds (target p99 ≤ 1 s).
 *
 * Every round presents B a key it does not know yet (while the key travels), which the credential throttle counts
 * as a guess; a throttled address is refused before its key is checked (401 `auth_throttled`), which would say
 * nothing about revocation. So the replicas run with a throttle burst no run reaches, and a throttled answer
 * stops the run instead of counting.
 *
 *   bun bench/revocation.ts [--rounds 100] [--feed redis|postgres]
 *
 * `--feed postgres` leaves REDIS_URL unset, so the change feed is PostgreSQL's LISTEN/NOTIFY.
 */
import { parseArgs } from 'node:util'
import { spawnGateway } from '../test/helpers/gateway-process.ts'
import { startMockOpenAI } from '../test/helpers/mock-openai-upstream.ts'
import { startPostgres } from '../test/helpers/postgres-server.ts'
import { startRedis } from '../test/helpers/redis-server.ts'

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '100' }, feed: { type: 'string', default: 'redis' } } })
const rounds = Math.min(1000, Number(args.rounds))
const MASTER = 'bench-master-key-0123456789abcdef0123'
const pg = await startPostgres()
const redis = args.feed === 'redis' ? await startRedis() : undefined
const mock = startMockOpenAI()
const env = {
  DATABASE_URL: await pg.freshDatabase(),
  GATEWAY_MASTER_KEY: MASTER,
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: mock.url,
  LOG_LEVEL: 'warn',
  GATEWAY_AUTH_FAILURE_BURST: '1000000',
  ...(redis ? { REDIS_URL: redis.url } : {}),
}
const [a, b] = await Promise.all([spawnGateway(env), spawnGateway(env)])
const admin = (url: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}/admin${path}`, { ...init, headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' } })
/** B's answer to the key: accepted, refused (the key was checked and is not valid), or throttled (not checked). */
const answer = async (url: string, key: string): Promise<'accepted' | 'refused'> => {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
  if (res.status === 200) {
    await res.arrayBuffer()
    return 'accepted'
  }
  const code = ((await res.json()) as { error?: { code?: string } }).error?.code
  if (res.status === 401 && code === 'invalid_api_key') return 'refused'
  throw new Error(`B answered ${res.status} ${code}: not a check of the key, the measurement would be wrong`)
}

const samples: number[] = []
try {
  for (let i = 0; i < rounds; i++) {
    const key = (await (await admin(a.url, '/keys', { method: 'POST', body: JSON.stringify({ name: `r${i}` }) })).json()) as { id: string; key: string }
    let accepted = false
    for (let t = 0; t < 2000 && !accepted; t++) {
      accepted = (await answer(b.url, key.key)) === 'accepted'
      if (!accepted) await Bun.sleep(2)
    }
    if (!accepted) throw new Error(`round ${i}: B did not accept the new key within 4 s`)
    const start = performance.now()
    await admin(a.url, `/keys/${key.id}/revoke`, { method: 'POST' })
    let refused = false
    for (let t = 0; t < 5000 && !refused; t++) {
      refused = (await answer(b.url, key.key)) === 'refused'
      if (!refused) await Bun.sleep(2)
    }
    if (!refused) throw new Error(`round ${i}: B still accepts the key after 10 s`)
    samples.push(performance.now() - start)
  }
} finally {
  await Promise.all([a.stop(), b.stop()])
  mock.stop()
  await redis?.stop()
  await pg.destroy()
}
samples.sort((x, y) => x - y)
const at = (p: number) => samples[Math.min(samples.length - 1, Math.ceil((p / 100) * samples.length) - 1)]!.toFixed(1)
console.log(`revocation on A → refused by B, ${samples.length} rounds, change feed: ${args.feed}`)
console.log(`p50 ${at(50)} ms, p95 ${at(95)} ms, p99 ${at(99)} ms, max ${samples.at(-1)!.toFixed(1)} ms (target p99 ≤ 1000 ms)`)
