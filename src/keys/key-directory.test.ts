import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { silentLogger } from '../log/logger.ts'
import { SqliteKeyStore } from '../stores/sqlite/api-keys.ts'
import { migrateSqlite } from '../stores/sqlite/migrate.ts'
import type { KeyStore } from '../stores/types.ts'
import { KeyDirectory, keyStatus, type NewApiKey } from './key-directory.ts'
import { hashKeySecret, KEY_PREFIX } from './key-secret.ts'

const NEW_KEY: NewApiKey = { name: 'ide', description: '', userPath: null, allowedModels: null, role: null, expiresAt: null, createdBy: 'master' }

/** A SQLite store whose calls can be made to fail, as during a database outage. */
function flakyStore() {
  const db = new Database(':memory:')
  migrateSqlite(db)
  const real = new SqliteKeyStore(db)
  const state = { down: false }
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    (...a: A) =>
      state.down ? Promise.reject(new Error('database is locked')) : fn(...a)
  const store: KeyStore = {
    loadAll: guard(() => real.loadAll()),
    list: guard((q) => real.list(q)),
    get: guard((id) => real.get(id)),
    insert: guard((r, o) => real.insert(r, o)),
    update: guard((id, c, at) => real.update(id, c, at)),
    revoke: guard((id, at) => real.revoke(id, at)),
  }
  return { store, real, state }
}

/** A directory over a flaky store, loaded once; it does not refresh on its own (the test drives it). */
async function loadedDirectory() {
  const flaky = flakyStore()
  const keys = new KeyDirectory(flaky.store, silentLogger)
  await keys.start()
  keys.stop()
  return { keys, ...flaky }
}

test('create returns a prefixed secret once; only its hash is kept; the snapshot knows it at once', async () => {
  const { keys, real } = await loadedDirectory()
  const { record, secret } = await keys.create(NEW_KEY)
  expect(secret.startsWith(KEY_PREFIX)).toBe(true)
  expect(secret.length).toBe(KEY_PREFIX.length + 43)
  expect(record.keyHash).toBe(hashKeySecret(secret))
  expect(record.redactedKey).toBe(`${KEY_PREFIX}...${secret.slice(-4)}`)
  expect(JSON.stringify(await real.loadAll())).not.toContain(secret.slice(KEY_PREFIX.length))
  expect(keys.lookup(record.keyHash)?.id).toBe(record.id)
  expect(keys.hasActiveKeys()).toBe(true)
})

test('a database outage keeps the last snapshot: valid keys stay valid, revocations stay revoked', async () => {
  const { keys, state } = await loadedDirectory()
  const a = await keys.create(NEW_KEY)
  const b = await keys.create(NEW_KEY)
  await keys.revoke(b.record.id)

  state.down = true
  expect(await keys.refresh()).toBe(false)
  expect(keys.isLoaded()).toBe(true)
  expect(keys.lookup(a.record.keyHash)?.revokedAt).toBeNull()
  expect(keys.lookup(b.record.keyHash)?.revokedAt).not.toBeNull()
})

test('revoke takes effect in memory even when the write fails, and a later refresh does not undo it', async () => {
  const { keys, store, state } = await loadedDirectory()
  const { record } = await keys.create(NEW_KEY)
  state.down = true
  const err = await keys.revoke(record.id).catch((e) => e)
  expect(err.status).toBe(503)
  expect(keys.lookup(record.keyHash)?.revokedAt).not.toBeNull()
  state.down = false
  await keys.refresh()
  expect(keys.lookup(record.keyHash)?.revokedAt).not.toBeNull()
  expect(keys.hasActiveKeys()).toBe(false)
  // The retry persists it and counts as the revocation (so the lifecycle entry is written then).
  expect((await keys.revoke(record.id))?.changed).toBe(true)
  expect((await store.get(record.id))?.revokedAt).not.toBeNull()
  expect((await keys.revoke(record.id))?.changed).toBe(false)
})

test('a snapshot that never loaded says so, and retries until it loads', async () => {
  const { store, state } = flakyStore()
  state.down = true
  const keys = new KeyDirectory(store, silentLogger, { retrySeconds: 0.02 })
  await keys.start()
  expect(keys.isLoaded()).toBe(false)
  state.down = false
  await Bun.sleep(80)
  keys.stop()
  expect(keys.isLoaded()).toBe(true)
})

test('changes made elsewhere (another replica) arrive with the refresh', async () => {
  const { keys, real } = await loadedDirectory()
  const { record } = await keys.create(NEW_KEY)
  await real.revoke(record.id, new Date(Date.now() + 1000).toISOString())
  expect(keys.lookup(record.keyHash)?.revokedAt).toBeNull()
  await keys.refresh()
  expect(keys.lookup(record.keyHash)?.revokedAt).not.toBeNull()
})

test('update refuses revoked keys and reports unknown ids', async () => {
  const { keys } = await loadedDirectory()
  const { record } = await keys.create(NEW_KEY)
  expect((await keys.update(record.id, { name: 'renamed' })).kind).toBe('updated')
  expect(keys.lookup(record.keyHash)?.name).toBe('renamed')
  await keys.revoke(record.id)
  expect((await keys.update(record.id, { name: 'again' })).kind).toBe('revoked')
  expect((await keys.update('nope', { name: 'x' })).kind).toBe('not_found')
  expect(await keys.revoke('nope')).toBeUndefined()
  expect((await keys.revoke(record.id))?.changed).toBe(false)
})

test('keyStatus', () => {
  const base = { revokedAt: null, expiresAt: null } as never
  expect(keyStatus(base, 0)).toBe('active')
  expect(keyStatus({ ...(base as object), expiresAt: '2000-01-01T00:00:00.000Z' } as never, Date.now())).toBe('expired')
  expect(keyStatus({ ...(base as object), revokedAt: '2000-01-01T00:00:00.000Z' } as never, 0)).toBe('revoked')
})

test('revoking a key revokes the keys it created, transitively, in the snapshot at once and in the store', async () => {
  const { keys, real } = await loadedDirectory()
  const root = await keys.create({ ...NEW_KEY, role: 'admin' })
  const child = await keys.create({ ...NEW_KEY, createdBy: root.record.id, role: 'admin' })
  const grandchild = await keys.create({ ...NEW_KEY, createdBy: child.record.id })
  const other = await keys.create(NEW_KEY)
  expect(keys.childrenOf(root.record.id).map((k) => k.id)).toEqual([child.record.id])
  expect(keys.creatorOf(grandchild.record)?.id).toBe(child.record.id)
  const result = await keys.revoke(root.record.id)
  expect(result?.cascaded.map((k) => k.id).sort()).toEqual([child.record.id, grandchild.record.id].sort())
  for (const { record } of [root, child, grandchild]) {
    expect(keys.isRevoked(record.id)).toBe(true)
    expect((await real.get(record.id))?.revokedAt).not.toBeNull()
  }
  expect(keys.isRevoked(other.record.id)).toBe(false)
})

test('during an outage the snapshot refuses the whole tree at once; the retry revokes it in the store', async () => {
  const { keys, real, state } = await loadedDirectory()
  const root = await keys.create(NEW_KEY)
  const child = await keys.create({ ...NEW_KEY, createdBy: root.record.id })
  state.down = true
  await expect(keys.revoke(root.record.id)).rejects.toMatchObject({ status: 503 })
  expect(keys.isRevoked(child.record.id)).toBe(true)
  state.down = false
  await keys.revoke(root.record.id)
  expect((await real.get(child.record.id))?.revokedAt).not.toBeNull()
})

test('a key created by a key revoked meanwhile (on another replica) is refused like the revoked key', async () => {
  const { keys, real } = await loadedDirectory()
  const creator = await keys.create({ ...NEW_KEY, role: 'admin' })
  await real.revoke(creator.record.id, new Date().toISOString())
  await expect(keys.create({ ...NEW_KEY, createdBy: creator.record.id })).rejects.toMatchObject({ status: 401, type: 'authentication_error' })
  expect((await real.loadAll()).length).toBe(1)
})
