/**
 * Every store implementation against the same contract. A backend joins with one line below.
 */
import { afterAll, beforeAll } from 'bun:test'
import { RedisClient } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'
import { redisAvailable, startRedis, type RunningRedis } from '../helpers/redis-server.ts'
import { loadConfig } from '../../src/config/load.ts'
import { silentLogger } from '../../src/log/logger.ts'
import { MemoryCounters } from '../../src/stores/memory/counters.ts'
import { MemoryResponseCache } from '../../src/stores/memory/response-cache.ts'
import { openStores } from '../../src/stores/open.ts'
import { RedisCounters } from '../../src/stores/redis/counters.ts'
import { RedisResponseCache } from '../../src/stores/redis/response-cache.ts'
import { countersContract, responseCacheContract } from './caches.contract.ts'
import { storesContract } from './stores.contract.ts'
import { filesContract } from './files.contract.ts'
import { batchesContract } from './batches.contract.ts'
import { LocalBlobStore } from '../../src/stores/blobs/local/local-blob-store.ts'
import { S3BlobStore } from '../../src/stores/blobs/s3/s3-blob-store.ts'
import { type RunningS3, S3_TEST_CREDENTIALS, s3ServerAvailable, startS3Server } from '../helpers/s3-server.ts'

const dirs: string[] = []
const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups) await c()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Stores as the gateway opens them from these settings (the backend is openStores' choice). */
const storesFrom = (env: Record<string, string>) => openStores(loadConfig({ env, cwd: '/nonexistent-dir-for-tests' }), silentLogger)
function tempDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'store-contract-'))
  dirs.push(dir)
  return join(dir, 'gateway.db')
}

let redis: Promise<RunningRedis> | undefined
const redisUrl = async () => {
  redis ??= startRedis().then((r) => (cleanups.push(() => r.stop()), r))
  return (await redis).url
}
const redisClient = async () => {
  const client = new RedisClient(await redisUrl())
  cleanups.unshift(() => client.close())
  return client
}

storesContract('sqlite file (write thread)', () => storesFrom({ GATEWAY_DB_PATH: tempDatabase() }))
storesContract('sqlite in memory', () => storesFrom({ GATEWAY_DB_PATH: ':memory:' }))
// The throwaway cluster starts once, before the tests (initdb takes seconds); each test gets a fresh database in it.
beforeAll(async () => {
  if (postgresAvailable()) await sharedPostgres()
}, 120_000)
if (postgresAvailable()) storesContract('postgres', async () => storesFrom({ DATABASE_URL: await (await sharedPostgres()).freshDatabase() }))
batchesContract('sqlite file', () => storesFrom({ GATEWAY_DB_PATH: tempDatabase() }))
batchesContract('sqlite in memory', () => storesFrom({ GATEWAY_DB_PATH: ':memory:' }))
if (postgresAvailable()) batchesContract('postgres', async () => storesFrom({ DATABASE_URL: await (await sharedPostgres()).freshDatabase() }))

/** A fresh local byte store in a temporary directory. */
async function localBlobs() {
  const dir = mkdtempSync(join(tmpdir(), 'files-contract-'))
  dirs.push(dir)
  const store = new LocalBlobStore(dir)
  await store.check()
  return store
}
filesContract('sqlite file, local bytes', () => storesFrom({ GATEWAY_DB_PATH: tempDatabase() }), localBlobs)
filesContract('sqlite in memory, local bytes', () => storesFrom({ GATEWAY_DB_PATH: ':memory:' }), localBlobs)
if (postgresAvailable()) filesContract('postgres, local bytes', async () => storesFrom({ DATABASE_URL: await (await sharedPostgres()).freshDatabase() }), localBlobs)
let s3: Promise<RunningS3> | undefined
/** A fresh bucket on the S3-compatible test server (moto), through Bun's S3 client. */
async function s3Blobs() {
  s3 ??= startS3Server().then((r) => (cleanups.push(() => r.stop()), r))
  const server = await s3
  const store = new S3BlobStore({ bucket: await server.createBucket(), endpoint: server.endpoint, prefix: 'files/', ...S3_TEST_CREDENTIALS })
  await store.check()
  return store
}
if (s3ServerAvailable()) filesContract('sqlite file, S3 bytes', () => storesFrom({ GATEWAY_DB_PATH: tempDatabase() }), s3Blobs)

countersContract('memory', () => new MemoryCounters())
responseCacheContract('memory', () => new MemoryResponseCache(1024 * 1024))
if (redisAvailable()) {
  countersContract('redis', async () => new RedisCounters(await redisClient()))
  responseCacheContract('redis', async () => new RedisResponseCache(await redisClient()))
}
