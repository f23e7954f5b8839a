/**
 * Admin roles and user-path confinement end to end (issue 26, defect 7 and the conversation view of defect 12): a
 * real gateway, every /admin route tried as every role, scoped and unscoped, and the attacks a dashboard-enabled
 * key could make before: widening itself, minting keys that outlive it, reading other paths' bodies, zeroing
 * prices, and another tenant's entries joining a conversation through a shared session id or Responses id.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { createHttpApp } from '../../src/http/server.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { ADMIN_ROUTE_ROLES, adminRouteProbe } from '../helpers/admin-route-table.ts'

const t = useGatewaySuite({
  providersFromEnv: true,
  env: (urls) => ({ LOGGING_LOG_BODIES: 'true', LOGGING_LOG_HEADERS: 'true', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5', MISTRAL_API_KEY: 'sk-m', MISTRAL_BASE_URL: urls.openai }),
})

const ROLES = ['viewer', 'auditor', 'key_manager', 'admin'] as const
type Role = (typeof ROLES)[number]
const TEAM_A = '/acme/team-a'

interface Answer {
  status: number
  body: any
}

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${t.gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, body: parsed }
}

const admin = (key: string, method: string, path: string, body?: unknown) => call(key, method, `/admin${path}`, body)

async function createKey(fields: Record<string, unknown>, by = t.master): Promise<{ id: string; key: string } & Record<string, any>> {
  const res = await admin(by, 'POST', '/keys', fields)
  if (res.status !== 201) throw new Error(`creating ${JSON.stringify(fields)}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

const chat = (key: string, content: string, headers: Record<string, string> = {}) =>
  call(key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] }, headers)

/** Waits until the audit writer stored what was recorded so far. */
const flushed = () => t.gw.gateway.auditLog.writer.flush()

/** A key of each role, unbound (unscoped) and bound to TEAM_A (scoped), and one without a role; made once, by the suites that use them. */
const keys = {} as Record<`${'scoped' | 'unscoped'}-${Role}`, string>
let plain: string
let made: Promise<void> | undefined
const roleKeys = () =>
  (made ??= (async () => {
    for (const role of ROLES) {
      keys[`unscoped-${role}`] = (await createKey({ name: `unscoped ${role}`, role })).key
      keys[`scoped-${role}`] = (await createKey({ name: `scoped ${role}`, role, user_path: TEAM_A })).key
    }
    plain = (await createKey({ name: 'no role', user_path: TEAM_A })).key
  })())

describe('every /admin route against every role', () => {
  beforeAll(roleKeys)

  /**
   * What each route needs, written out here rather than read from the code: a route added later that this list
   * lacks fails the first test, and a role that gets more (or less) than listed fails the matrix.
   */
  const EXPECTED = ADMIN_ROUTE_ROLES
  /** Sign-in checks the credential itself, before the guard: any admin role may sign in. */
  const SIGN_IN = 'POST /admin/session'

  const registered = () =>
    createHttpApp(t.gw.gateway)
      .routes.filter((r) => r.path.startsWith('/admin') || r.path === '/metrics')
      .map((r) => ({ name: `${r.method} ${r.path}`, declared: (r.hooks as { detail?: Record<string, unknown> } | undefined)?.detail?.['x-admin-permission'] }))

  test('every registered /admin route declares a permission, and is listed here', () => {
    const routes = registered()
    expect(routes.length).toBeGreaterThan(20)
    for (const route of routes) {
      if (route.name === SIGN_IN || route.name === 'GET /metrics') continue
      expect({ route: route.name, declared: typeof route.declared }).toEqual({ route: route.name, declared: 'string' })
    }
    expect(routes.map((r) => r.name).sort()).toEqual([...Object.keys(EXPECTED), SIGN_IN].sort())
  })

  const probe = adminRouteProbe

  test('each role, scoped and unscoped, gets exactly what the list says; a key without a role gets nothing', async () => {
    const violations: string[] = []
    for (const name of Object.keys(EXPECTED)) {
      const { roles, unscopedOnly } = EXPECTED[name]!
      const { method, path, body } = probe(name)
      for (const role of ROLES) {
        for (const scope of ['unscoped', 'scoped'] as const) {
          const res = await call(keys[`${scope}-${role}`], method, path, body)
          const refused = res.status === 403 && res.body?.error?.code === 'admin_permission_denied'
          const allowed = roles.includes(role) && (scope === 'unscoped' || !unscopedOnly)
          if (refused === allowed) violations.push(`${scope} ${role} ${name}: ${res.status} ${res.body?.error?.code ?? ''}`)
        }
      }
      const none = await call(plain, method, path, body)
      if (none.status !== 403 || none.body?.error?.code !== 'admin_access_denied') violations.push(`no role ${name}: ${none.status}`)
      const master = await call(t.master, method, path, body)
      if (master.status === 403) violations.push(`master ${name}: 403`)
    }
    expect(violations).toEqual([])
  }, 60_000)

  test('sign-in and whoami tell the role, the scope and the permissions', async () => {
    const signedIn = await admin(keys['scoped-key_manager'], 'POST', '/session')
    expect(signedIn.status).toBe(200)
    expect(signedIn.body).toMatchObject({ auth_method: 'managed_key', role: 'key_manager', scope: TEAM_A, user_path: TEAM_A, grantable_roles: [] })
    expect(signedIn.body.permissions).toContain('keys.write')
    expect(signedIn.body.permissions).not.toContain('audit.content')
    const master = await admin(t.master, 'GET', '/whoami')
    expect(master.body).toMatchObject({ principal_id: 'master', role: 'admin', scope: null, grantable_roles: [...ROLES] })
    expect((await admin(keys['unscoped-viewer'], 'GET', '/whoami')).body.permissions).toContain('operations.read')
    expect((await admin(keys['scoped-viewer'], 'GET', '/whoami')).body.permissions).not.toContain('operations.read')
    expect((await admin(plain, 'POST', '/session')).body.error).toMatchObject({ code: 'admin_access_denied' })
  })
})

describe('a dashboard-enabled key bound to one path and one model (the attacks of the issue)', () => {
  let attacker: { id: string; key: string }
  beforeAll(async () => {
    attacker = await createKey({ name: 'team-a dashboard', user_path: TEAM_A, allowed_models: ['openai/gpt-4o-mini'], dashboard_enabled: true })
  })

  test('dashboard_enabled still means admin, now confined to its own path', async () => {
    expect((await admin(t.master, 'GET', `/keys/${attacker.id}`)).body).toMatchObject({ role: 'admin', dashboard_enabled: true, user_path: TEAM_A })
    expect((await admin(attacker.key, 'GET', '/whoami')).body).toMatchObject({ role: 'admin', scope: TEAM_A })
  })

  test('cannot widen itself: PATCH user_path null, another path, all models, a longer life are refused', async () => {
    for (const change of [{ user_path: null }, { user_path: '/acme' }, { allowed_models: null }, { role: 'viewer' }, { expires_at: '2099-01-01T00:00:00Z' }]) {
      const res = await admin(attacker.key, 'PATCH', `/keys/${attacker.id}`, change)
      expect({ change, status: res.status, code: res.body.error?.code }).toEqual({ change, status: 403, code: 'own_key_power' })
    }
    expect((await admin(attacker.key, 'PATCH', `/keys/${attacker.id}`, { description: 'renamed by itself' })).status).toBe(200)
    expect((await admin(t.master, 'GET', `/keys/${attacker.id}`)).body).toMatchObject({ user_path: TEAM_A, allowed_models: ['openai/gpt-4o-mini'] })
  })

  test('cannot give another key more than it has', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ name: 'unbound' }, 'user_path'],
      [{ name: 'elsewhere', user_path: '/globex' }, 'user_path'],
      [{ name: 'parent path', user_path: '/acme' }, 'user_path'],
      [{ name: 'every model', user_path: TEAM_A }, 'allowed_models'],
      [{ name: 'a wider pattern', user_path: TEAM_A, allowed_models: ['openai/*'] }, 'allowed_models'],
    ]
    for (const [fields, param] of refusals) {
      const res = await admin(attacker.key, 'POST', '/keys', fields)
      expect({ fields, status: res.status, param: res.body.error?.param, code: res.body.error?.code }).toEqual({ fields, status: 403, param, code: 'exceeds_own_access' })
    }
    const child = await createKey({ name: 'ok child', user_path: `${TEAM_A}/ci`, allowed_models: ['openai/gpt-4o-mini'] }, attacker.key)
    expect(child).toMatchObject({ created_by: attacker.id, role: null })
    const res = await admin(attacker.key, 'PATCH', `/keys/${child.id}`, { user_path: null })
    expect(res).toMatchObject({ status: 403, body: { error: { code: 'exceeds_own_access', param: 'user_path' } } })
    const outside = await createKey({ name: 'globex key', user_path: '/globex' })
    expect((await admin(attacker.key, 'PATCH', `/keys/${outside.id}`, { name: 'mine now' })).status).toBe(404)
    expect((await admin(attacker.key, 'POST', `/keys/${outside.id}/revoke`)).status).toBe(404)
    expect((await admin(attacker.key, 'GET', `/keys/${outside.id}`)).status).toBe(404)
    const listed = await admin(attacker.key, 'GET', '/keys?limit=100&include_revoked=true')
    expect(listed.body.keys.every((k: { user_path: string | null }) => k.user_path?.startsWith(TEAM_A))).toBe(true)
    expect((await admin(attacker.key, 'GET', '/keys?user_path=/globex')).body.error).toMatchObject({ code: 'outside_admin_scope' })
  })

  test('the dashboard keys it mints are revoked with it, transitively, and every replica-facing snapshot refuses them at once', async () => {
    const boss = await createKey({ name: 'short-lived admin', user_path: TEAM_A, dashboard_enabled: true })
    const child = await createKey({ name: 'minted', user_path: TEAM_A, dashboard_enabled: true }, boss.key)
    const grandchild = await createKey({ name: 'minted by minted', user_path: `${TEAM_A}/x` }, child.key)
    expect((await admin(child.key, 'GET', '/whoami')).status).toBe(200)
    expect((await chat(grandchild.key, 'echo:hi')).status).toBe(200)
    expect((await admin(t.master, 'POST', `/keys/${boss.id}/revoke`)).status).toBe(200)
    expect((await admin(child.key, 'GET', '/whoami')).status).toBe(401)
    expect((await chat(child.key, 'echo:hi')).status).toBe(401)
    expect((await chat(grandchild.key, 'echo:hi')).status).toBe(401)
    for (const id of [child.id, grandchild.id]) expect((await admin(t.master, 'GET', `/keys/${id}`)).body.status).toBe('revoked')
  })

  test("cannot read another path's audit entries or bodies", async () => {
    const bob = await createKey({ name: 'bob', user_path: '/globex' })
    const requestId = crypto.randomUUID()
    expect((await chat(bob.key, 'echo:globex secret plan', { 'x-request-id': requestId })).status).toBe(200)
    const entry = await t.audit.entryFor(requestId)
    expect(JSON.stringify(entry.data.request_body)).toContain('globex secret plan')
    expect((await admin(attacker.key, 'GET', `/audit/log?search=${requestId}`)).body.total).toBe(0)
    expect((await admin(attacker.key, 'GET', `/audit/log?user_path=/globex`)).body.error).toMatchObject({ code: 'outside_admin_scope' })
    expect((await admin(attacker.key, 'GET', `/audit/detail?log_id=${entry.id}`)).status).toBe(404)
    expect((await admin(attacker.key, 'GET', `/audit/conversation?log_id=${entry.id}`)).status).toBe(404)
    const all = await admin(attacker.key, 'GET', '/audit/log?limit=100')
    expect(all.body.entries.every((e: { user_path: string }) => e.user_path.startsWith(TEAM_A))).toBe(true)
  })

  test('cannot set prices to zero, change workflows or read the gateway-wide counters', async () => {
    const price = await admin(attacker.key, 'PUT', '/pricing/openai/gpt-4o', { input: 0, output: 0 })
    expect(price).toMatchObject({ status: 403, body: { error: { code: 'admin_permission_denied' } } })
    expect((await admin(attacker.key, 'POST', '/workflows', { name: 'default', features: { audit: false } })).status).toBe(403)
    expect((await call(attacker.key, 'GET', '/metrics')).status).toBe(403)
    expect((await admin(t.master, 'GET', '/pricing')).body.data.find((p: { model: string; source: string }) => p.source === 'override')).toBeUndefined()
  })
})

describe('roles inside a subtree', () => {
  beforeAll(roleKeys)

  test('a key manager makes and revokes keys without a role, never one with a role', async () => {
    const manager = keys['scoped-key_manager']
    const made = await createKey({ name: 'ci key', user_path: `${TEAM_A}/ci` }, manager)
    expect((await admin(manager, 'POST', '/keys', { name: 'viewer?', user_path: TEAM_A, role: 'viewer' })).body.error).toMatchObject({ code: 'exceeds_own_access', param: 'role' })
    expect((await admin(manager, 'PATCH', `/keys/${made.id}`, { role: 'viewer' })).body.error).toMatchObject({ code: 'exceeds_own_access', param: 'role' })
    const viewer = await createKey({ name: 'team viewer', user_path: TEAM_A, role: 'viewer' })
    expect((await admin(manager, 'POST', `/keys/${viewer.id}/revoke`)).body.error).toMatchObject({ code: 'admin_permission_denied' })
    expect((await admin(manager, 'PATCH', `/keys/${viewer.id}`, { name: 'renamed' })).status).toBe(403)
    expect((await admin(manager, 'POST', `/keys/${made.id}/revoke`)).body).toMatchObject({ status: 'revoked' })
  })

  test('a scoped admin grants roles up to admin inside its subtree, never an expiry past its own', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const lead = await createKey({ name: 'team lead', user_path: TEAM_A, role: 'admin', expires_at: expiresAt })
    const deputy = await createKey({ name: 'deputy', user_path: `${TEAM_A}/ops`, role: 'admin', expires_at: expiresAt }, lead.key)
    expect(deputy).toMatchObject({ role: 'admin', created_by: lead.id })
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString()
    for (const fields of [
      { name: 'x', user_path: TEAM_A },
      { name: 'x', user_path: TEAM_A, expires_at: later },
    ]) {
      expect((await admin(lead.key, 'POST', '/keys', fields)).body.error).toMatchObject({ code: 'exceeds_own_access', param: 'expires_at' })
    }
    expect((await admin(lead.key, 'PATCH', `/keys/${deputy.id}`, { expires_at: null })).body.error).toMatchObject({ param: 'expires_at' })
    // A budget in its subtree, not outside it.
    const budget = await admin(lead.key, 'POST', '/budgets', { scope: { user_path: `${TEAM_A}/ops` }, window: 'day', limit_usd: 5 })
    expect(budget.status).toBe(201)
    expect((await admin(lead.key, 'POST', '/budgets', { scope: { user_path: '/globex' }, window: 'day', limit_usd: 5 })).body.error).toMatchObject({ code: 'outside_admin_scope' })
    const globex = await admin(t.master, 'POST', '/budgets', { scope: { user_path: '/globex' }, window: 'day', limit_usd: 5 })
    expect((await admin(lead.key, 'GET', '/budgets')).body.data.map((b: { id: string }) => b.id)).toEqual([budget.body.id])
    expect((await admin(lead.key, 'DELETE', `/budgets/${globex.body.id}`)).status).toBe(404)
    expect((await admin(lead.key, 'DELETE', `/budgets/${budget.body.id}`)).status).toBe(200)
  })

  test('a creator lowered: the keys it made that now exceed it are flagged, and revoked with it', async () => {
    const lead = await createKey({ name: 'lead to be lowered', user_path: TEAM_A, role: 'admin' })
    const child = await createKey({ name: 'its auditor', user_path: TEAM_A, role: 'auditor' }, lead.key)
    const plainChild = await createKey({ name: 'its ci key', user_path: `${TEAM_A}/ci` }, lead.key)
    expect((await admin(t.master, 'GET', `/keys/${child.id}`)).body.exceeds_creator).toEqual([])
    expect((await admin(t.master, 'PATCH', `/keys/${lead.id}`, { role: 'viewer', user_path: `${TEAM_A}/ci` })).status).toBe(200)
    expect((await admin(t.master, 'GET', `/keys/${child.id}`)).body.exceeds_creator).toEqual(['role', 'user_path'])
    expect((await admin(t.master, 'GET', `/keys/${plainChild.id}`)).body.exceeds_creator).toEqual([])
    await admin(t.master, 'POST', `/keys/${lead.id}/revoke`)
    expect((await admin(t.master, 'GET', `/keys/${child.id}`)).body).toMatchObject({ status: 'revoked', exceeds_creator: [] })
  })

  test('a viewer reads entries without bodies or headers and no security events; an auditor reads both, inside its subtree only', async () => {
    const alice = await createKey({ name: 'alice', user_path: `${TEAM_A}/alice` })
    const requestId = crypto.randomUUID()
    await chat(alice.key, 'echo:team a prompt', { 'x-request-id': requestId })
    const entry = await t.audit.entryFor(requestId)
    const viewer = keys['scoped-viewer']
    const seen = await admin(viewer, 'GET', `/audit/detail?log_id=${entry.id}`)
    expect(seen.status).toBe(200)
    expect(seen.body.data.request_body).toBeUndefined()
    expect(seen.body.data.response_body).toBeUndefined()
    expect(seen.body.data.request_headers).toBeUndefined()
    expect(JSON.stringify(seen.body)).not.toContain('team a prompt')
    const listed = await admin(viewer, 'GET', `/audit/log?search=${requestId}`)
    expect(listed.body.entries[0].data.request_headers).toBeUndefined()
    const conversation = await admin(viewer, 'GET', `/audit/conversation?log_id=${entry.id}`)
    expect(JSON.stringify(conversation.body)).not.toContain('team a prompt')
    expect((await admin(viewer, 'GET', '/audit/log?limit=100&days=1')).body.entries.some((e: { data: { event_type?: string } }) => e.data.event_type)).toBe(false)

    const auditor = keys['scoped-auditor']
    expect(JSON.stringify((await admin(auditor, 'GET', `/audit/detail?log_id=${entry.id}`)).body.data.request_body)).toContain('team a prompt')
    await flushed()
    const events = (await admin(auditor, 'GET', '/audit/log?limit=100&days=1')).body.entries.filter((e: { data: { event_type?: string } }) => e.data.event_type)
    expect(events.some((e: { data: { event_type: string; event_subject_id: string } }) => e.data.event_type === 'key.created' && e.data.event_subject_id === alice.id)).toBe(true)
    expect(events.every((e: { user_path: string }) => e.user_path.startsWith(TEAM_A))).toBe(true)
  })

  test("another tenant's workflows (scopes, plugin settings) are hidden; those that apply to the reader are shown", async () => {
    const viewer = keys['scoped-viewer']
    const otherKey = await createKey({ name: 'globex app', user_path: '/globex' })
    const ownKey = await createKey({ name: 'team app', user_path: `${TEAM_A}/app` })
    const mk = async (name: string, scope: Record<string, string>) =>
      (await admin(t.master, 'POST', '/workflows', { name, scope, plugins: { 'system-prompt': { prompt: `secret of ${name}` } } })).body.id as string
    const hidden = [
      await mk('wf-globex-path', { user_path: '/globex' }),
      await mk('wf-globex-key', { key_id: otherKey.id }),
      await mk('wf-sibling', { user_path: '/acme/team-ab' }),
    ]
    const shown = [
      await mk('wf-team', { user_path: TEAM_A }),
      await mk('wf-parent', { user_path: '/acme' }),
      await mk('wf-own-key', { key_id: ownKey.id }),
      await mk('wf-model', { model: 'openai/gpt-4o' }),
    ]
    const listed = (await admin(viewer, 'GET', '/workflows')).body.data.map((w: { id: string }) => w.id)
    for (const id of shown) expect(listed).toContain(id)
    for (const id of hidden) {
      expect(listed).not.toContain(id)
      expect((await admin(viewer, 'GET', `/workflows/${id}`)).status).toBe(404)
    }
    expect((await admin(viewer, 'GET', `/workflows/${shown[0]}`)).status).toBe(200)
    const unscoped = (await admin(keys['unscoped-viewer'], 'GET', '/workflows')).body.data.map((w: { id: string }) => w.id)
    for (const id of [...hidden, ...shown]) expect(unscoped).toContain(id)
  })

  test('usage sums cover the subtree only', async () => {
    const inside = await createKey({ name: 'usage inside', user_path: `${TEAM_A}/usage` })
    const outside = await createKey({ name: 'usage outside', user_path: '/globex/usage' })
    await chat(inside.key, 'echo:in')
    await chat(outside.key, 'echo:out')
    const byPath = await admin(keys['scoped-viewer'], 'GET', '/usage/breakdown?by=user_path')
    expect(byPath.status).toBe(200)
    const paths = byPath.body.data.map((r: { user_path: string }) => r.user_path)
    expect(paths).toContain(`${TEAM_A}/usage`)
    expect(paths.every((p: string) => p.startsWith(TEAM_A))).toBe(true)
    const everything = await admin(t.master, 'GET', '/usage/breakdown?by=user_path')
    expect(everything.body.data.map((r: { user_path: string }) => r.user_path)).toContain('/globex/usage')
    const scopedTotal = (await admin(keys['scoped-viewer'], 'GET', '/usage/summary')).body.requests
    const total = (await admin(t.master, 'GET', '/usage/summary')).body.requests
    expect(scopedTotal).toBeGreaterThan(0)
    expect(scopedTotal).toBeLessThan(total)
  })
})

describe('security events: every admin change, with actor, before and after', () => {
  beforeAll(roleKeys)

  /** The events of one type about one subject, newest first, among the day's entries of the admin path they were made on. */
  const eventsOf = async (type: string, subject: string, path: string) => {
    await flushed()
    const page = await t.audit.list({ path, days: '1', limit: '100' })
    return page.entries.filter((e) => e.data.event_type === type && e.data.event_subject_id === subject)
  }

  test('a key change names the actor and carries the key before and after, never a secret', async () => {
    const lead = await createKey({ name: 'event actor', user_path: TEAM_A, role: 'admin' })
    const made = await createKey({ name: 'event subject', user_path: `${TEAM_A}/a` }, lead.key)
    await admin(lead.key, 'PATCH', `/keys/${made.id}`, { user_path: `${TEAM_A}/b`, allowed_models: ['fast'] })
    const [updated] = await eventsOf('key.updated', made.id, `/admin/keys/${made.id}`)
    expect(updated).toMatchObject({ principal_id: lead.id, auth_key_id: lead.id, auth_method: 'managed_key', user_path: TEAM_A, path: `/admin/keys/${made.id}` })
    expect(updated!.data.event_before).toMatchObject({ user_path: `${TEAM_A}/a`, allowed_models: null })
    expect(updated!.data.event_after).toMatchObject({ user_path: `${TEAM_A}/b`, allowed_models: ['fast'] })
    const [created] = await eventsOf('key.created', made.id, '/admin/keys')
    expect(created).toMatchObject({ user_path: `${TEAM_A}/a`, status_code: 201 })
    expect(created!.data.event_before).toBeNull()
    expect(JSON.stringify(created)).not.toContain(made.key.slice(6))
  })

  test('workflows, prices, budgets and rate limits: before and after; global ones visible unscoped only', async () => {
    expect((await admin(t.master, 'PUT', '/pricing/acme-model', { input: 1, output: 2 })).status).toBe(200)
    expect((await admin(t.master, 'PUT', '/pricing/acme-model', { input: 3, output: 4 })).status).toBe(200)
    const prices = await eventsOf('price.set', 'acme-model', '/admin/pricing/acme-model')
    expect(prices.map((e) => [e.data.event_before, e.data.event_after])).toEqual([
      [
        { input: 1, output: 2 },
        { input: 3, output: 4 },
      ],
      [null, { input: 1, output: 2 }],
    ])
    await admin(t.master, 'DELETE', '/pricing/acme-model')
    expect((await eventsOf('price.deleted', 'acme-model', '/admin/pricing/acme-model'))[0]!.data).toMatchObject({ event_before: { input: 3, output: 4 }, event_after: null })

    const workflow = await admin(t.master, 'POST', '/workflows', { name: 'events-wf', features: { cache: true } })
    await admin(t.master, 'POST', '/workflows', { name: 'events-wf', features: { cache: false } })
    const changed = await eventsOf('workflow.changed', workflow.body.id, '/admin/workflows')
    expect(changed[0]!.data).toMatchObject({ event_before: { version: 1, features: { cache: true } }, event_after: { version: 2, features: { cache: false } } })
    await admin(t.master, 'POST', `/workflows/${workflow.body.id}/deactivate`)
    expect((await eventsOf('workflow.deactivated', workflow.body.id, `/admin/workflows/${workflow.body.id}/deactivate`))[0]!.data).toMatchObject({ event_after: { active: false } })

    const limit = await admin(t.master, 'POST', '/rate-limits', { scope: { user_path: `${TEAM_A}/rl` }, requests_per_minute: 100 })
    await admin(t.master, 'DELETE', `/rate-limits/${limit.body.id}`)
    const [gone] = await eventsOf('rate_limit.deleted', limit.body.id, `/admin/rate-limits/${limit.body.id}`)
    expect(gone).toMatchObject({ user_path: `${TEAM_A}/rl` })
    expect(gone!.data).toMatchObject({ event_before: { requests_per_minute: 100 }, event_after: null })

    const workflowEvents = `/audit/log?path=/admin/workflows&days=1`
    expect((await admin(keys['scoped-auditor'], 'GET', workflowEvents)).body.total).toBe(0)
    expect((await admin(keys['unscoped-auditor'], 'GET', workflowEvents)).body.total).toBeGreaterThan(0)
    expect((await admin(keys['scoped-auditor'], 'GET', `/audit/log?path=/admin/rate-limits/${limit.body.id}&days=1`)).body.total).toBe(1)
  })

  test('sign-ins and failed sign-ins are recorded; a sign-in is filed under the principal’s scope', async () => {
    const signer = await createKey({ name: 'signer', user_path: TEAM_A, role: 'viewer' })
    await admin(signer.key, 'POST', '/session')
    await flushed()
    await admin('not-a-key', 'POST', '/session')
    await flushed()
    const page = await t.audit.list({ path: '/admin/session', days: '1', limit: '100' })
    const signIn = page.entries.find((e) => e.data.event_type === 'dashboard.sign_in' && e.principal_id === signer.id)
    expect(signIn).toMatchObject({ user_path: TEAM_A, auth_key_id: signer.id })
    expect(page.entries.some((e) => e.data.event_type === 'dashboard.sign_in_failed')).toBe(true)
  })
})

describe('the conversation view keeps to one tenant', () => {
  /** A team-a admin (dashboard_enabled, as before roles): reads what team-a may read. */
  let teamReader: string
  beforeAll(async () => {
    teamReader = (await createKey({ name: 'team-a reader', user_path: TEAM_A, dashboard_enabled: true })).key
  })

  test('a session id another tenant also sends does not join the thread', async () => {
    const alice = await createKey({ name: 'alice sessions', user_path: `${TEAM_A}/alice` })
    const mallory = await createKey({ name: 'mallory sessions', user_path: '/globex/mallory' })
    const session = { 'x-session-id': `shared-${crypto.randomUUID()}` }
    const first = crypto.randomUUID()
    await chat(alice.key, 'echo:alice one', { ...session, 'x-request-id': first })
    await chat(mallory.key, 'echo:mallory injected', session)
    await chat(alice.key, 'echo:alice two', session)
    const anchor = await t.audit.entryFor(first)
    await flushed()
    const thread = await admin(t.master, 'GET', `/audit/conversation?log_id=${anchor.id}`)
    expect(thread.body.entries).toHaveLength(2)
    expect(JSON.stringify(thread.body)).not.toContain('mallory')
    const scoped = await admin(teamReader, 'GET', `/audit/conversation?log_id=${anchor.id}`)
    expect(scoped.body.entries).toHaveLength(2)
  })

  test('a client request id another tenant reuses finds only the reader’s own entries', async () => {
    const alice = await createKey({ name: 'alice ids', user_path: `${TEAM_A}/alice` })
    const mallory = await createKey({ name: 'mallory ids', user_path: '/globex/mallory' })
    const requestId = crypto.randomUUID()
    await chat(alice.key, 'echo:alice', { 'x-request-id': requestId })
    await chat(mallory.key, 'echo:mallory', { 'x-request-id': requestId })
    await t.audit.eventually(
      () => t.audit.list({ search: requestId }),
      (p) => p.total === 2,
    )
    const found = await admin(teamReader, 'GET', `/audit/log?search=${requestId}`)
    expect(found.body.entries.map((e: { principal_id: string }) => e.principal_id)).toEqual([alice.id])
  })

  test('a previous_response_id of another tenant does not join its Responses chain', async () => {
    const alice = await createKey({ name: 'alice responses', user_path: `${TEAM_A}/alice` })
    const mallory = await createKey({ name: 'mallory responses', user_path: '/globex/mallory' })
    const requestId = crypto.randomUUID()
    const first = await call(alice.key, 'POST', '/v1/responses', { model: 'mistral/gpt-4o', input: 'echo:alice first' }, { 'x-request-id': requestId })
    expect(first.status).toBe(200)
    await call(mallory.key, 'POST', '/v1/responses', { model: 'mistral/gpt-4o', input: 'echo:mallory follows', previous_response_id: first.body.id })
    const next = await call(alice.key, 'POST', '/v1/responses', { model: 'mistral/gpt-4o', input: 'echo:alice second', previous_response_id: first.body.id })
    expect(next.status).toBe(200)
    await flushed()
    const anchor = await t.audit.entryFor(requestId)
    const thread = await admin(t.master, 'GET', `/audit/conversation?log_id=${anchor.id}`)
    expect(thread.body.entries.map((e: { principal_id: string }) => e.principal_id)).toEqual([alice.id, alice.id])
    expect(JSON.stringify(thread.body)).not.toContain('mallory')
  })
})

describe('compatibility', () => {
  test('dashboard_enabled: true without a role means admin, false means none; a contradiction is a 400', async () => {
    expect(await createKey({ name: 'legacy on', dashboard_enabled: true })).toMatchObject({ role: 'admin', dashboard_enabled: true })
    expect(await createKey({ name: 'legacy off', dashboard_enabled: false })).toMatchObject({ role: null, dashboard_enabled: false })
    expect(await createKey({ name: 'role', role: 'auditor' })).toMatchObject({ role: 'auditor', dashboard_enabled: true })
    const bad = await admin(t.master, 'POST', '/keys', { name: 'both', role: 'viewer', dashboard_enabled: false })
    expect(bad).toMatchObject({ status: 400, body: { error: { param: 'dashboard_enabled' } } })
    const unknown = await admin(t.master, 'POST', '/keys', { name: 'superuser', role: 'root' })
    expect(unknown).toMatchObject({ status: 400, body: { error: { param: 'role' } } })
  })
})
