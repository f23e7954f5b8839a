import { expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { loadConfig } from '../config/load.ts'
import { silentLogger } from '../log/logger.ts'
import { openStores, StoreConfigError } from './open.ts'

test('a GATEWAY_DB_PATH that looks like a URL stops start-up with a message naming DATABASE_URL', async () => {
  const config = loadConfig({ env: { GATEWAY_DB_PATH: 'postgres://gw:secret@db:5432/gateway' }, cwd: '/nonexistent-dir-for-tests' })
  const opening = openStores(config, silentLogger)
  await expect(opening).rejects.toBeInstanceOf(StoreConfigError)
  const message = await opening.catch((e: Error) => e.message)
  expect(message).toContain('DATABASE_URL')
  expect(message).not.toContain('secret')
  expect(existsSync('postgres:')).toBe(false)
})

test('DATABASE_URL must be a postgres URL', () => {
  expect(() => loadConfig({ env: { DATABASE_URL: 'mysql://db/gateway' }, cwd: '/nonexistent-dir-for-tests' })).toThrow(/DATABASE_URL|database\.url/)
})

test('an in-memory database opens every store', async () => {
  const stores = await openStores(loadConfig({ env: { GATEWAY_DB_PATH: ':memory:' }, cwd: '/nonexistent-dir-for-tests' }), silentLogger)
  for (const name of [
    'keys',
    'workflows',
    'limits',
    'prices',
    'audit',
    'auditSink',
    'usage',
    'usageSink',
    'responseThreads',
    'counters',
    'responseCache',
    'changes',
    'lease',
  ] as const)
    expect(stores[name]).toBeDefined()
  expect(await stores.keys.loadAll()).toEqual([])
  await stores.close()
})
