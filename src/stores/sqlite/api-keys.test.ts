import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import type { ApiKeyRecord } from '../types.ts'
import { SqliteKeyStore } from './api-keys.ts'
import { migrateSqlite } from './migrate.ts'

function record(i: number, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString()
  return {
    id: `id-${i}`,
    name: `key ${i}`,
    description: '',
    keyHash: `hash-${i}`,
    redactedKey: `sk-gw-...${i}`,
    userPath: null,
    allowedModels: null,
    dashboardEnabled: false,
    expiresAt: null,
    createdAt: at,
    updatedAt: at,
    revokedAt: null,
    createdBy: 'master',
    ...extra,
  }
}

function store() {
  const db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  return new SqliteKeyStore(db)
}

test('round trip keeps every field, including null and list values', async () => {
  const s = store()
  const r = record(1, { userPath: '/acme', allowedModels: ['openai/*', 'fast'], dashboardEnabled: true, expiresAt: '2031-01-01T00:00:00.000Z', description: 'd' })
  await s.insert(r)
  expect(await s.get('id-1')).toEqual(r)
  expect(await s.loadAll()).toEqual([r])
  expect(await s.get('nope')).toBeUndefined()
})

test('list: newest first, paged, total; revoked hidden unless asked; search and user path subtree', async () => {
  const s = store()
  await s.insert(record(1, { name: 'Cursor laptop', userPath: '/acme/team-a' }))
  await s.insert(record(2, { description: 'CI runner 100%', userPath: '/acme' }))
  await s.insert(record(3, { userPath: '/acme-evil' }))
  await s.insert(record(4, { revokedAt: '2030-02-01T00:00:00.000Z', userPath: '/acme/team-a' }))
  await s.insert(record(5))

  const all = await s.list({ limit: 2, offset: 0, includeRevoked: false })
  expect(all.total).toBe(4)
  expect(all.keys.map((k) => k.id)).toEqual(['id-5', 'id-3'])
  expect((await s.list({ limit: 2, offset: 2, includeRevoked: false })).keys.map((k) => k.id)).toEqual(['id-2', 'id-1'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: true })).total).toBe(5)

  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: 'cursor' })).keys.map((k) => k.id)).toEqual(['id-1'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: '100%' })).keys.map((k) => k.id)).toEqual(['id-2'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: '%' })).keys.map((k) => k.id)).toEqual(['id-2'])

  const acme = await s.list({ limit: 10, offset: 0, includeRevoked: true, userPath: '/acme' })
  expect(acme.keys.map((k) => k.id).sort()).toEqual(['id-1', 'id-2', 'id-4'])
})

test('update changes only what is given and never a revoked key; revoke keeps the first time', async () => {
  const s = store()
  await s.insert(record(1, { allowedModels: ['a'] }))
  const updated = await s.update('id-1', { name: 'new', allowedModels: null, userPath: '/x' }, '2030-03-01T00:00:00.000Z')
  expect(updated).toMatchObject({ name: 'new', allowedModels: null, userPath: '/x', description: '', updatedAt: '2030-03-01T00:00:00.000Z' })
  const revoked = await s.revoke('id-1', '2030-04-01T00:00:00.000Z')
  expect(revoked).toMatchObject({ changed: true, record: { revokedAt: '2030-04-01T00:00:00.000Z' } })
  expect(await s.revoke('id-1', '2030-05-01T00:00:00.000Z')).toMatchObject({ changed: false, record: { revokedAt: '2030-04-01T00:00:00.000Z' } })
  expect(await s.update('id-1', { name: 'again' }, '2030-06-01T00:00:00.000Z')).toBeUndefined()
  expect(await s.revoke('nope', '2030-01-01T00:00:00.000Z')).toBeUndefined()
})
