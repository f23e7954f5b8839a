import { expect, test } from 'bun:test'
import { exceedingFields, type Holder, holderOfKey, type KeyPower } from './key-grants.ts'

const key = (extra: Partial<KeyPower> = {}): KeyPower => ({
  role: null,
  userPath: '/acme/a',
  allowedModels: ['openai/gpt-4o-mini'],
  expiresAt: '2030-01-01T00:00:00.000Z',
  ...extra,
})
const holder = (extra: Partial<Holder> = {}): Holder => ({ roles: [], scope: '/acme', allowedModels: ['openai/*', 'fast'], expiresAt: '2031-01-01T00:00:00.000Z', ...extra })

test('a key within the holder exceeds it nowhere', () => {
  expect(exceedingFields(key(), holder())).toEqual([])
  expect(
    exceedingFields(key({ role: 'admin', userPath: null, allowedModels: null, expiresAt: null }), { roles: ['admin'], scope: null, allowedModels: null, expiresAt: null }),
  ).toEqual([])
})

test('each field on its own', () => {
  expect(exceedingFields(key({ role: 'viewer' }), holder())).toEqual(['role'])
  expect(exceedingFields(key({ role: 'viewer' }), holder({ roles: ['viewer'] }))).toEqual([])
  expect(exceedingFields(key({ userPath: null }), holder())).toEqual(['user_path'])
  expect(exceedingFields(key({ userPath: '/' }), holder())).toEqual(['user_path'])
  expect(exceedingFields(key({ userPath: '/acme-corp' }), holder())).toEqual(['user_path'])
  expect(exceedingFields(key({ allowedModels: null }), holder())).toEqual(['allowed_models'])
  expect(exceedingFields(key({ expiresAt: null }), holder())).toEqual(['expires_at'])
  expect(exceedingFields(key({ expiresAt: '2032-01-01T00:00:00.000Z' }), holder())).toEqual(['expires_at'])
})

test('models are covered as written: a pattern covers names and narrower patterns, a name only itself', () => {
  const models = (allowedModels: string[]) => exceedingFields(key({ allowedModels }), holder(), ['allowed_models'])
  expect(models(['openai/gpt-4o', 'openai/gpt-4o*', 'openai/*', 'fast'])).toEqual([])
  expect(models(['openai*'])).toEqual(['allowed_models'])
  expect(models(['*'])).toEqual(['allowed_models'])
  expect(models(['fast*'])).toEqual(['allowed_models'])
  expect(models(['anthropic/claude'])).toEqual(['allowed_models'])
  expect(exceedingFields(key({ allowedModels: ['anything*'] }), holder({ allowedModels: ['*'] }))).toEqual([])
})

test('only the fields asked about are compared', () => {
  expect(exceedingFields(key({ userPath: null, allowedModels: null }), holder(), ['role', 'expires_at'])).toEqual([])
})

test('what a key could give is what it is now: its grantable roles, its path (/ is the whole tree), its models and expiry', () => {
  expect(holderOfKey({ role: 'admin', userPath: '/', allowedModels: null, expiresAt: null })).toEqual({
    roles: ['viewer', 'auditor', 'key_manager', 'admin'],
    scope: null,
    allowedModels: null,
    expiresAt: null,
  })
  expect(holderOfKey({ role: 'key_manager', userPath: '/acme', allowedModels: ['x'], expiresAt: null })).toMatchObject({ roles: [], scope: '/acme' })
})
