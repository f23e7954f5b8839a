import { describe, expect, test } from 'bun:test'
import { oidcConfigSchema, roleRuleSchema } from './config.ts'
import { grantFromClaims } from './role-rules.ts'
import { CookieSigner, cookieHeader } from './session-cookie.ts'

const rules = [
  roleRuleSchema.parse({ claim: 'groups', includes: 'gw-admins', role: 'admin' }),
  roleRuleSchema.parse({ claim: 'tid', equals: 'tenant-1', role: 'auditor', scope: '/acme//team-a/' }),
  roleRuleSchema.parse({ email_domain: 'Acme.com', role: 'viewer' }),
]

describe('role rules', () => {
  test('first match wins; scopes are normalised', () => {
    expect(grantFromClaims(rules, { groups: ['x', 'gw-admins'], tid: 'tenant-1' }, '')).toMatchObject({ role: 'admin', scope: null })
    expect(grantFromClaims(rules, { groups: [], tid: 'tenant-1' }, '')).toMatchObject({ role: 'auditor', scope: '/acme/team-a' })
  })

  test('email domains match case-insensitively, never a look-alike, never an unverified address', () => {
    expect(grantFromClaims(rules, { email: 'Bob@ACME.com' }, '')?.role).toBe('viewer')
    expect(grantFromClaims(rules, { email: 'bob@notacme.com' }, '')).toBeUndefined()
    expect(grantFromClaims(rules, { email: 'bob@acme.com.evil.test' }, '')).toBeUndefined()
    expect(grantFromClaims(rules, { email: 'bob@acme.com', email_verified: false }, '')).toBeUndefined()
  })

  test('no match, no grant; a rule needs one condition', () => {
    expect(grantFromClaims(rules, { groups: 'gw-admin' }, '')).toBeUndefined()
    expect(() => roleRuleSchema.parse({ claim: 'groups', role: 'admin' })).toThrow()
    expect(() => roleRuleSchema.parse({ claim: 'groups', includes: 'a', email_domain: 'b', role: 'admin' })).toThrow()
  })

  test('an issuer needs a client id, secret and a session secret of 32+ characters', () => {
    const result = oidcConfigSchema.safeParse({ issuer: 'https://idp.example', client_id: 'c', session_secret: 'short' })
    expect(result.success).toBe(false)
    expect(result.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['client_secret', 'session_secret'])
  })
})

describe('session cookies', () => {
  test('signed per purpose: a changed or other-purpose cookie does not verify', () => {
    const sessions = new CookieSigner('x'.repeat(32), 'session')
    const logins = new CookieSigner('x'.repeat(32), 'login')
    const cookie = sessions.sign({ sid: 'a', role: 'viewer' })
    expect(sessions.verify(cookie)).toEqual({ sid: 'a', role: 'viewer' })
    expect(logins.verify(cookie)).toBeUndefined()
    const [body, mac] = cookie.split('.') as [string, string]
    const forged = Buffer.from(JSON.stringify({ sid: 'a', role: 'admin' })).toString('base64url')
    expect(sessions.verify(`${forged}.${mac}`)).toBeUndefined()
    expect(sessions.verify(`${body}.`)).toBeUndefined()
    expect(sessions.csrfToken('a')).not.toBe(sessions.csrfToken('b'))
  })

  test('HttpOnly always, Secure unless switched off', () => {
    expect(cookieHeader('s', 'v', { secure: true, maxAgeSeconds: 60, sameSite: 'Strict' })).toBe('s=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure')
    expect(cookieHeader('s', 'v', { secure: false, maxAgeSeconds: 60 })).not.toContain('Secure')
  })
})
