/**
 * Dashboard sign-in through a real OpenID provider (issue 31, items 1, 2 and 4): `oidc-provider` started by the
 * test (test/helpers/oidc-provider.ts), its login and consent pages walked over HTTP; the gateway discovers it,
 * runs the code flow with PKCE, maps ID-token claims to roles, and the session cookie works on /admin with CSRF
 * protection, timeouts, refresh, sign-out on every replica (the shared counters) and security events with the
 * person's subject and email. Every /admin route is tried by a signed-in person of every role, scoped and not.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { ADMIN_ROUTE_ROLES, adminRouteProbe, ROLES } from '../helpers/admin-route-table.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { CookieJar, signIn, startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts'
import { redisAvailable, startRedis } from '../helpers/redis-server.ts'

const MASTER = 'master-key-sso-dashboard-0123456789abcdef'
const SESSION_SECRET = 'session-secret-for-sso-tests-0123456789'
const TEAM_A = '/acme/team-a'

let mock: MockUpstream
let provider: TestProvider
let gw: RunningGateway
let audit: AuditAdmin

beforeAll(async () => {
  mock = startMockOpenAI()
  provider = await startTestProvider()
  const rules = ROLES.flatMap((role) => [
    `      - { claim: groups, includes: gw-${role}, role: ${role} }`,
    `      - { claim: groups, includes: gw-${role}-team-a, role: ${role}, scope: ${TEAM_A} }`,
  ])
  const yaml = `
auth:
  oidc:
    cookie_secure: false
    scopes: [openid, email, profile, groups]
    role_rules:
${rules.join('\n')}
      - { email_domain: viewers.test, role: viewer }
`
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: mock.url,
    GATEWAY_CONFIG: writeGatewayYaml(yaml),
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_SESSION_SECRET: SESSION_SECRET,
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '10',
  })
  provider.serve(`${gw.url}/auth/oidc/callback`, `${gw.url}/dashboard`)
  audit = auditAdmin(gw.url, MASTER)
}, 30_000)
afterAll(async () => {
  await gw?.stop()
  await provider?.stop()
  mock?.stop()
})

const person = (login: string, claims: Record<string, unknown>) => provider.accounts.set(login, { email: `${login}@acme.test`, email_verified: true, name: login, ...claims })

/** Signs `login` in; answers its cookie jar and its CSRF token. */
async function session(login: string) {
  const { jar, response } = await signIn(gw.url, login)
  expect(response.status).toBe(302)
  expect(response.headers.get('location')).toBe('/dashboard')
  const info = await jar.fetch(`${gw.url}/auth/oidc/session`)
  expect(info.status).toBe(200)
  const body = (await info.json()) as { csrf_token: string }
  return { jar, csrf: body.csrf_token }
}

async function adminCall(jar: CookieJar, method: string, path: string, options: { body?: unknown; csrf?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
    ...options.headers,
  }
  const res = await jar.fetch(`${gw.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })
  const text = await res.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, body, headers: res.headers }
}

const sso = () => gw.gateway.sso!

describe('signing in', () => {
  test('an admin by group: an HttpOnly SameSite=Strict session cookie, whoami as the person, a security event with subject and email', async () => {
    person('alice', { groups: ['gw-admin'] })
    const { jar, response } = await signIn(gw.url, 'alice')
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('gw_session='))!
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    expect(cookie).not.toContain('Secure') // cookie_secure: false for this plain-HTTP test
    const whoami = await adminCall(jar, 'GET', '/admin/whoami')
    expect(whoami.status).toBe(200)
    expect(whoami.body).toMatchObject({ principal_id: 'oidc:alice', auth_method: 'oidc_session', role: 'admin', scope: null })
    const events = await audit.eventually(
      () => audit.list({ search: 'dashboard.sign_in' }),
      (p) => p.entries.some((e) => e.principal_id === 'oidc:alice'),
    )
    const entry = await audit.detail(events.entries.find((e) => e.principal_id === 'oidc:alice')!.id)
    expect(entry.data).toMatchObject({ event_type: 'dashboard.sign_in', actor_email: 'alice@acme.test' })
  })

  test('by email domain (verified addresses only)', async () => {
    person('val', { email: 'val@viewers.test', groups: [] })
    const { jar } = await session('val')
    expect((await adminCall(jar, 'GET', '/admin/whoami')).body).toMatchObject({ role: 'viewer', principal_id: 'oidc:val' })
    person('unverified', { email: 'unverified@viewers.test', email_verified: false, groups: [] })
    const refused = await signIn(gw.url, 'unverified')
    expect(refused.response.status).toBe(403)
  })

  test('a person no rule matches cannot sign in; the failure is an event with subject and email', async () => {
    person('mallory', { groups: ['marketing'] })
    const { response, jar } = await signIn(gw.url, 'mallory')
    expect(response.status).toBe(403)
    expect(jar.get(gw.url, 'gw_session')).toBeUndefined()
    const page = await audit.eventually(
      () => audit.list({ search: 'dashboard.sign_in_failed' }),
      (p) => p.entries.some((e) => e.principal_id === 'oidc:mallory'),
    )
    const entry = await audit.detail(page.entries.find((e) => e.principal_id === 'oidc:mallory')!.id)
    expect(entry.status_code).toBe(403)
    expect(entry.data).toMatchObject({ event_type: 'dashboard.sign_in_failed', actor_email: 'mallory@acme.test', event_message: 'no role rule matches this person’s claims' })
  })

  test('a callback without this browser’s sign-in, or with another state, is refused and recorded', async () => {
    const stray = await fetch(`${gw.url}/auth/oidc/callback?code=x&state=y`, { redirect: 'manual' })
    expect(stray.status).toBe(400)
    const jar = new CookieJar()
    const started = await jar.fetch(`${gw.url}/auth/oidc/login`)
    expect(started.status).toBe(302)
    const location = new URL(started.headers.get('location')!)
    expect(location.searchParams.get('code_challenge_method')).toBe('S256')
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const wrongState = await jar.fetch(`${gw.url}/auth/oidc/callback?code=x&state=not-the-state`)
    expect(wrongState.status).toBe(400)
  })

  test('a changed session cookie is refused and cleared', async () => {
    person('trudy', { groups: ['gw-viewer'] })
    const { jar } = await session('trudy')
    const value = jar.get(gw.url, 'gw_session')!
    const [body, mac] = value.split('.') as [string, string]
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString())
    const forged = `${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${mac}`
    const res = await fetch(`${gw.url}/admin/whoami`, { headers: { cookie: `gw_session=${forged}` } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_invalid')
    expect(res.headers.getSetCookie().some((c) => c.startsWith('gw_session=;') && c.includes('Max-Age=0'))).toBe(true)
  })
})

describe('state-changing calls with the session cookie', () => {
  test('need the CSRF token of the session and the gateway’s own origin; the change is recorded with the person', async () => {
    person('kim', { groups: ['gw-key_manager-team-a'] })
    const { jar, csrf } = await session('kim')
    const fields = { name: 'made by kim', user_path: `${TEAM_A}/ci` }
    const without = await adminCall(jar, 'POST', '/admin/keys', { body: fields })
    expect(without.status).toBe(403)
    expect(without.body.error.code).toBe('csrf_token_invalid')
    const wrong = await adminCall(jar, 'POST', '/admin/keys', { body: fields, csrf: csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) })
    expect(wrong.body.error.code).toBe('csrf_token_invalid')
    const crossOrigin = await adminCall(jar, 'POST', '/admin/keys', { body: fields, csrf, headers: { origin: 'https://evil.example' } })
    expect(crossOrigin.body.error.code).toBe('csrf_origin_invalid')
    const made = await adminCall(jar, 'POST', '/admin/keys', { body: fields, csrf, headers: { origin: gw.url } })
    expect(made.status).toBe(201)
    // Who may mint keys follows the role: a key manager of team-a cannot mint outside it.
    expect((await adminCall(jar, 'POST', '/admin/keys', { body: { name: 'outside', user_path: '/globex' }, csrf })).status).toBe(403)
    const page = await audit.eventually(
      () => audit.list({ search: 'key.created' }),
      (p) => p.entries.some((e) => e.principal_id === 'oidc:kim'),
    )
    const entry = await audit.detail(page.entries.find((e) => e.principal_id === 'oidc:kim')!.id)
    expect(entry.data).toMatchObject({ event_type: 'key.created', actor_email: 'kim@acme.test' })
    expect(entry.auth_method).toBe('oidc_session')
  })

  test('a key in the request decides over the cookie (the master key keeps working, a bad key is not rescued by a session)', async () => {
    person('ann', { groups: ['gw-admin'] })
    const { jar } = await session('ann')
    expect((await adminCall(jar, 'GET', '/admin/whoami', { headers: { authorization: `Bearer ${MASTER}` } })).body.principal_id).toBe('master')
    expect((await adminCall(jar, 'GET', '/admin/whoami', { headers: { authorization: 'Bearer sk-gw-wrong' } })).status).toBe(401)
  })
})

describe('session lifetime', () => {
  const later = (ms: number) => {
    const real = Date.now
    sso().now = () => real() + ms
    return () => {
      sso().now = real
    }
  }

  test('idle and absolute timeouts end the session; activity renews the idle clock', async () => {
    person('ida', { groups: ['gw-viewer'] })
    const { jar } = await session('ida')
    let restore = later(5 * 60_000)
    const renewed = await adminCall(jar, 'GET', '/admin/whoami')
    restore()
    expect(renewed.status).toBe(200)
    // The last use is written back (at most once a minute): a new cookie.
    expect(renewed.headers.getSetCookie().some((c) => c.startsWith('gw_session='))).toBe(true)
    const other = await session('ida')
    restore = later(31 * 60_000)
    const idle = await adminCall(other.jar, 'GET', '/admin/whoami')
    restore()
    expect(idle.status).toBe(401)
    expect(idle.body.error.code).toBe('session_expired')
    const third = await session('ida')
    restore = later(13 * 3_600_000)
    const absolute = await adminCall(third.jar, 'GET', '/admin/whoami')
    restore()
    expect(absolute.body.error.code).toBe('session_expired')
  })

  test('after the refresh time the role is mapped again: a person whose groups no longer map loses access', async () => {
    person('rob', { groups: ['gw-admin'] })
    const { jar } = await session('rob')
    const before = jar.get(gw.url, 'gw_session')!
    const restore = later(11 * 60_000)
    const due = await adminCall(jar, 'GET', '/admin/whoami')
    restore()
    expect(due.status).toBe(401)
    expect(due.body.error.code).toBe('session_refresh_required')
    // Removed from the group at the provider: the renewed sign-in finds no rule, and no session.
    person('rob', { groups: ['former-staff'] })
    const again = await signIn(gw.url, 'rob', jar)
    expect(again.response.status).toBe(403)
    expect(jar.get(gw.url, 'gw_session')).toBeUndefined()
    // The old session is ended too (on every replica), not merely dropped by this browser.
    const replayed = await fetch(`${gw.url}/admin/whoami`, { headers: { cookie: `gw_session=${before}` } })
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('session_ended')
  })

  test('sign-out ends the session everywhere (a copied cookie is refused too) and points to the provider’s end-session endpoint', async () => {
    person('sam', { groups: ['gw-auditor'] })
    const { jar, csrf } = await session('sam')
    const copied = jar.get(gw.url, 'gw_session')!
    expect((await adminCall(jar, 'POST', '/auth/oidc/logout')).status).toBe(403)
    const out = await adminCall(jar, 'POST', '/auth/oidc/logout', { csrf })
    expect(out.status).toBe(200)
    expect(out.body.end_session_url).toStartWith(`${provider.issuer}/session/end`)
    expect(new URL(out.body.end_session_url).searchParams.get('post_logout_redirect_uri')).toBe(`${gw.url}/dashboard`)
    const replayed = await fetch(`${gw.url}/admin/whoami`, { headers: { cookie: `gw_session=${copied}` } })
    expect(replayed.status).toBe(401)
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('session_ended')
    await audit.eventually(
      () => audit.list({ search: 'dashboard.sign_out' }),
      (p) => p.entries.some((e) => e.principal_id === 'oidc:sam'),
    )
  })
})

describe('every /admin route against every role, as signed-in persons', () => {
  test('each role, scoped and unscoped, gets exactly what the table of admin-roles.test.ts says', async () => {
    const sessions = new Map<string, { jar: CookieJar; csrf: string }>()
    for (const role of ROLES) {
      for (const scope of ['unscoped', 'scoped'] as const) {
        const login = `${scope}-${role}`
        person(login, { groups: [scope === 'scoped' ? `gw-${role}-team-a` : `gw-${role}`] })
        sessions.set(login, await session(login))
      }
    }
    const violations: string[] = []
    for (const [name, { roles, unscopedOnly }] of Object.entries(ADMIN_ROUTE_ROLES)) {
      // /metrics takes an admin key (a scraper), never a browser session.
      if (name === 'GET /metrics') continue
      const { method, path, body } = adminRouteProbe(name)
      for (const role of ROLES) {
        for (const scope of ['unscoped', 'scoped'] as const) {
          const { jar, csrf } = sessions.get(`${scope}-${role}`)!
          const res = await adminCall(jar, method, path, { body, csrf })
          const refused = res.status === 403 && res.body?.error?.code === 'admin_permission_denied'
          const allowed = roles.includes(role) && (scope === 'unscoped' || !unscopedOnly)
          if (refused === allowed || res.status === 401) violations.push(`${scope} ${role} ${name}: ${res.status} ${res.body?.error?.code ?? ''}`)
        }
      }
    }
    expect(violations).toEqual([])
    const metrics = await adminCall(sessions.get('unscoped-admin')!.jar, 'GET', '/metrics')
    expect(metrics.status).toBe(401)
  }, 120_000)
})

describe.skipIf(!redisAvailable() && !process.env.CI)('replicas sharing the session secret and Redis', () => {
  test('a session works on every replica, sign-out on one holds on the other, and forged cookies are throttled', async () => {
    const redis = await startRedis()
    const replica = (extra: Record<string, string> = {}) =>
      startGateway({
        GATEWAY_MASTER_KEY: MASTER,
        OPENAI_API_KEY: 'sk-openai-test',
        OPENAI_BASE_URL: mock.url,
        REDIS_URL: redis.url,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_SESSION_SECRET: SESSION_SECRET,
        OIDC_COOKIE_SECURE: 'false',
        ...extra,
      })
    const [b, c] = await Promise.all([replica(), replica({ GATEWAY_AUTH_FAILURE_BURST: '3', GATEWAY_AUTH_FAILURE_REFILL_PER_SECOND: '0.01' })])
    try {
      person('rita', { groups: ['gw-admin'] })
      const { jar } = await session('rita')
      const cookie = `gw_session=${jar.get(gw.url, 'gw_session')!}`
      const whoamiAt = async (g: RunningGateway, cookieHeader = cookie) => {
        const res = await fetch(`${g.url}/admin/whoami`, { headers: { cookie: cookieHeader } })
        return { status: res.status, code: res.status === 200 ? null : ((await res.json()) as { error: { code: string } }).error.code }
      }
      expect(await whoamiAt(b)).toEqual({ status: 200, code: null })
      expect(await whoamiAt(c)).toEqual({ status: 200, code: null })

      const atB = await fetch(`${b.url}/auth/oidc/session`, { headers: { cookie } })
      const { csrf_token } = (await atB.json()) as { csrf_token: string }
      expect((await fetch(`${b.url}/auth/oidc/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf_token } })).status).toBe(200)
      expect(await whoamiAt(c)).toEqual({ status: 401, code: 'session_ended' })

      for (let i = 0; i < 3; i++) expect(await whoamiAt(c, `gw_session=forged${i}.AAAA`)).toEqual({ status: 401, code: 'session_invalid' })
      person('rita', { groups: ['gw-admin'] })
      const fresh = await session('rita')
      // Throttled: even a good session is not checked from this address now.
      expect(await whoamiAt(c, `gw_session=${fresh.jar.get(gw.url, 'gw_session')!}`)).toEqual({ status: 401, code: 'auth_throttled' })
      expect(await whoamiAt(b, `gw_session=${fresh.jar.get(gw.url, 'gw_session')!}`)).toEqual({ status: 200, code: null })
    } finally {
      await b.stop()
      await c.stop()
      await redis.stop()
    }
  }, 30_000)
})
