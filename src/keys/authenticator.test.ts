import { Database } from 'bun:sqlite'
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { silentLogger } from '../log/logger.ts'
import { SqliteKeyStore } from '../stores/sqlite/api-keys.ts'
import { migrateSqlite } from '../stores/sqlite/migrate.ts'
import type { KeyStore } from '../stores/types.ts'
import { KeyAuthenticator } from './authenticator.ts'
import { CredentialThrottle } from './credential-throttle.ts'
import { KeyDirectory, type NewApiKey } from './key-directory.ts'

const MASTER = 'master-key-for-tests-0123456789abcdef'
const NEW_KEY: NewApiKey = { name: 'k', description: '', userPath: '/acme', allowedModels: ['openai/*'], role: null, expiresAt: null, createdBy: 'master' }

function directory(now = () => Date.now()) {
  const db = new Database(':memory:')
  migrateSqlite(db)
  return new KeyDirectory(new SqliteKeyStore(db), silentLogger, { now })
}
const bearer = (key: string) => new Headers({ authorization: `Bearer ${key}` })

let clock = Date.now()
const keys = directory(() => clock)
const auth = new KeyAuthenticator(MASTER, keys)
let active: string, revoked: string, expiring: string

beforeAll(async () => {
  await keys.start()
  keys.stop()
  active = (await keys.create(NEW_KEY)).secret
  const r = await keys.create(NEW_KEY)
  revoked = r.secret
  await keys.revoke(r.record.id)
  expiring = (await keys.create({ ...NEW_KEY, expiresAt: new Date(clock + 60_000).toISOString() })).secret
})

describe('KeyAuthenticator', () => {
  test('master key and managed keys, from Bearer or x-api-key', () => {
    expect(auth.authenticate(bearer(MASTER))).toMatchObject({ kind: 'authenticated', principal: { method: 'master_key', id: 'master' } })
    const result = auth.authenticate(new Headers({ 'x-api-key': active }))
    expect(result).toMatchObject({ kind: 'authenticated', principal: { method: 'managed_key', userPath: '/acme', allowedModels: ['openai/*'], admin: undefined } })
    expect(auth.authenticate(bearer(active))).toMatchObject({ kind: 'authenticated' })
    expect(auth.authenticate(new Headers({ authorization: `bearer   ${active}  ` }))).toMatchObject({ kind: 'authenticated' })
  })

  test('the principal carries its admin grant: the master key unscoped, a key its role confined to its user path', async () => {
    expect(auth.authenticate(bearer(MASTER))).toMatchObject({ principal: { admin: { role: 'admin', scope: null, expiresAt: null } } })
    const expiresAt = new Date(clock + 3_600_000).toISOString()
    const scoped = await keys.create({ ...NEW_KEY, role: 'auditor', expiresAt })
    expect(auth.authenticate(bearer(scoped.secret))).toMatchObject({ principal: { admin: { role: 'auditor', scope: '/acme', expiresAt } } })
    const rooted = await keys.create({ ...NEW_KEY, userPath: '/', role: 'viewer' })
    expect(auth.authenticate(bearer(rooted.secret))).toMatchObject({ principal: { admin: { role: 'viewer', scope: null } } })
  })

  test.each([
    ['missing', new Headers(), 'missing'],
    ['Basic scheme', new Headers({ authorization: `Basic ${btoa('a:b')}` }), 'malformed'],
    ['Bearer without a key', new Headers({ authorization: 'Bearer' }), 'malformed'],
    ['two tokens', new Headers({ authorization: `Bearer ${MASTER} extra` }), 'malformed'],
    ['empty x-api-key', new Headers({ 'x-api-key': ' ' }), 'malformed'],
    ['very long', bearer('x'.repeat(10_000)), 'malformed'],
    ['unknown', bearer('sk-gw-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 'unknown'],
    ['master key prefix', bearer(MASTER.slice(0, -1)), 'unknown'],
  ])('%s → rejected', (_name, headers, failure) => {
    expect(auth.authenticate(headers)).toMatchObject({ kind: 'rejected', failure })
  })

  test('revoked and expired keys are rejected with their reason', () => {
    expect(auth.authenticate(bearer(revoked))).toMatchObject({ kind: 'rejected', failure: 'revoked' })
    expect(auth.authenticate(bearer(expiring))).toMatchObject({ kind: 'authenticated' })
    clock += 61_000
    try {
      expect(auth.authenticate(bearer(expiring))).toMatchObject({ kind: 'rejected', failure: 'expired' })
    } finally {
      clock -= 61_000
    }
  })

  test('no master key and no managed key: a request without a key is refused unless the operator allowed open mode', async () => {
    const empty = directory()
    await empty.start()
    empty.stop()
    expect(new KeyAuthenticator(undefined, empty).authenticate(new Headers())).toMatchObject({ kind: 'rejected', failure: 'missing' })
    expect(new KeyAuthenticator(MASTER, empty, { allowOpen: true }).authenticate(new Headers())).toMatchObject({ kind: 'rejected', failure: 'missing' })
  })

  test('open mode allowed, no master key: open while no managed key exists, closed once one does', async () => {
    const empty = directory()
    await empty.start()
    empty.stop()
    const open = new KeyAuthenticator(undefined, empty, { allowOpen: true })
    expect(open.authenticate(new Headers())).toMatchObject({ kind: 'authenticated', principal: { method: 'none' } })
    const { secret } = await empty.create({ ...NEW_KEY, userPath: null })
    expect(open.authenticate(new Headers())).toMatchObject({ kind: 'rejected', failure: 'missing' })
    expect(open.authenticate(bearer(secret))).toMatchObject({ kind: 'authenticated' })
  })

  test('a snapshot that never loaded is "unavailable" for managed keys, never a 401; the master key still works', async () => {
    const failing: KeyStore = { loadAll: () => Promise.reject(new Error('down')) } as unknown as KeyStore
    const never = new KeyDirectory(failing, silentLogger)
    await never.start()
    never.stop()
    const a = new KeyAuthenticator(MASTER, never)
    expect(a.authenticate(bearer(active))).toMatchObject({ kind: 'unavailable' })
    expect(a.authenticate(bearer(MASTER))).toMatchObject({ kind: 'authenticated' })
    expect(new KeyAuthenticator(undefined, never, { allowOpen: true }).authenticate(new Headers())).toMatchObject({ kind: 'unavailable' })
  })

  test('with a throttle, a throttled address is refused before its credential is checked: a right guess too', () => {
    const throttle = new CredentialThrottle({ burst: 3, refillPerSecond: 1 })
    const guarded = new KeyAuthenticator(MASTER, keys, { throttle })
    const from = (address: string) => () => address
    for (const guess of ['a', 'b', 'c']) expect(guarded.authenticate(bearer(`sk-gw-guess-${guess}`), from('10.1.1.1'))).toMatchObject({ kind: 'rejected' })
    for (const right of [bearer(MASTER), new Headers({ 'x-api-key': active })]) {
      expect(guarded.authenticate(right, from('10.1.1.1'))).toMatchObject({ kind: 'throttled', retryAfterSeconds: 1 })
      expect(guarded.authenticate(right, from('10.1.1.2'))).toMatchObject({ kind: 'authenticated' })
    }
  })

  test('with a throttle, a client repeating one revoked key is never throttled, and neither is its neighbour', () => {
    const throttle = new CredentialThrottle({ burst: 3, refillPerSecond: 1 })
    const guarded = new KeyAuthenticator(MASTER, keys, { throttle })
    for (let i = 0; i < 50; i++) expect(guarded.authenticate(bearer(revoked), () => '10.2.2.2')).toMatchObject({ kind: 'rejected', failure: 'revoked' })
    expect(guarded.authenticate(bearer(active), () => '10.2.2.2')).toMatchObject({ kind: 'authenticated' })
  })
})

describe('property: random Authorization values', () => {
  const headerValue = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc
      .tuple(fc.constantFrom('Bearer ', 'bearer ', 'Bearer\t', 'Basic ', 'Bearer  ', ''), fc.string({ maxLength: 80 }), fc.constantFrom('', ' ', '\t', ' x'))
      .map((p) => p.join('')),
    fc.constantFrom('sk-gw-', 'Bearer sk-gw-').chain((p) => fc.base64String({ maxLength: 60 }).map((s) => p + s)),
    fc.string({ maxLength: 49 }).map((s) => `Bearer ${active.slice(0, 49 - s.length)}${s}`),
  )

  test('never throws and never accepts anything but a valid key', () => {
    fc.assert(
      fc.property(headerValue, fc.boolean(), (value, asApiKey) => {
        let headers: Headers
        try {
          headers = new Headers({ [asApiKey ? 'x-api-key' : 'authorization']: value })
        } catch {
          return // not a legal header value; the HTTP layer never hands it to us
        }
        const result = auth.authenticate(headers)
        if (result.kind !== 'authenticated') return
        const presented = (headers.get(asApiKey ? 'x-api-key' : 'authorization') ?? '').replace(/^Bearer[ \t]+/i, '').trim()
        expect([MASTER, active, expiring]).toContain(presented)
      }),
      { numRuns: 3000 },
    )
  })
})
