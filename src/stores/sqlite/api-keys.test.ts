import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { keyRecord } from '../../../test/helpers/store-records.ts'
import { SqliteKeyStore } from './api-keys.ts'
import { migrateSqlite } from './migrate.ts'

function store() {
  const db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  return new SqliteKeyStore(db)
}

test('round trip keeps every field, including null and list values', async () => {
  const s = store()
  const r = keyRecord(1, { userPath: '/acme', allowedModels: ['openai/*', 'fast'], role: 'admin', expiresAt: '2031-01-01T00:00:00.000Z', description: 'd' })
  await s.insert(r)
  expect(await s.get('key-1')).toEqual(r)
  expect(await s.loadAll()).toEqual([r])
  expect(await s.get('nope')).toBeUndefined()
})

test('list: newest first, paged, total; revoked hidden unless asked; search and user path subtree', async () => {
  const s = store()
  await s.insert(keyRecord(1, { name: 'Cursor laptop', userPath: '/acme/team-a' }))
  await s.insert(keyRecord(2, { description: 'CI runner 100%', userPath: '/acme' }))
  await s.insert(keyRecord(3, { userPath: '/acme-evil' }))
  await s.insert(keyRecord(4, { revokedAt: '2030-02-01T00:00:00.000Z', userPath: '/acme/team-a' }))
  await s.insert(keyRecord(5))

  const all = await s.list({ limit: 2, offset: 0, includeRevoked: false })
  expect(all.total).toBe(4)
  expect(all.keys.map((k) => k.id)).toEqual(['key-5', 'key-3'])
  expect((await s.list({ limit: 2, offset: 2, includeRevoked: false })).keys.map((k) => k.id)).toEqual(['key-2', 'key-1'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: true })).total).toBe(5)

  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: 'cursor' })).keys.map((k) => k.id)).toEqual(['key-1'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: '100%' })).keys.map((k) => k.id)).toEqual(['key-2'])
  expect((await s.list({ limit: 10, offset: 0, includeRevoked: false, search: '%' })).keys.map((k) => k.id)).toEqual(['key-2'])

  const acme = await s.list({ limit: 10, offset: 0, includeRevoked: true, userPath: '/acme' })
  expect(acme.keys.map((k) => k.id).sort()).toEqual(['key-1', 'key-2', 'key-4'])
})

test('update changes only what is given and never a revoked key; revoke keeps the first time', async () => {
  const s = store()
  await s.insert(keyRecord(1, { allowedModels: ['a'] }))
  const updated = await s.update('key-1', { name: 'new', allowedModels: null, userPath: '/x' }, '2030-03-01T00:00:00.000Z')
  expect(updated).toMatchObject({ name: 'new', allowedModels: null, userPath: '/x', description: '', updatedAt: '2030-03-01T00:00:00.000Z' })
  const revoked = await s.revoke('key-1', '2030-04-01T00:00:00.000Z')
  expect(revoked).toMatchObject({ changed: true, record: { revokedAt: '2030-04-01T00:00:00.000Z' } })
  expect(await s.revoke('key-1', '2030-05-01T00:00:00.000Z')).toMatchObject({ changed: false, record: { revokedAt: '2030-04-01T00:00:00.000Z' } })
  expect(await s.update('key-1', { name: 'again' }, '2030-06-01T00:00:00.000Z')).toBeUndefined()
  expect(await s.revoke('nope', '2030-01-01T00:00:00.000Z')).toBeUndefined()
})

test('the legacy dashboard_enabled column follows the role: true only for an unscoped admin (what a previous release reads)', async () => {
  const db = new Database(':memory:', { strict: true })
  migrateSqlite(db)
  const s = new SqliteKeyStore(db)
  const legacy = (id: string) => db.query<{ d: number }, [string]>('SELECT dashboard_enabled AS d FROM api_keys WHERE id = ?').get(id)?.d
  await s.insert(keyRecord(1, { role: 'admin' }))
  await s.insert(keyRecord(2, { role: 'admin', userPath: '/acme' }))
  await s.insert(keyRecord(3, { role: 'viewer' }))
  expect([legacy('key-1'), legacy('key-2'), legacy('key-3')]).toEqual([1, 0, 0])
  await s.update('key-1', { userPath: '/acme' }, '2030-02-01T00:00:00.000Z')
  await s.update('key-2', { userPath: '/' }, '2030-02-01T00:00:00.000Z')
  await s.update('key-3', { role: 'admin' }, '2030-02-01T00:00:00.000Z')
  expect([legacy('key-1'), legacy('key-2'), legacy('key-3')]).toEqual([0, 1, 1])
})
