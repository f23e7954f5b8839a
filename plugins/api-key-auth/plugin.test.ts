import { beforeAll, describe, expect, test } from 'bun:test'
import type { Decision } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { apiKeyAuth } from './plugin.ts'

const MASTER = 'master-key-for-api-key-auth-tests-0123456789'
const deps = await makeDeps({ GATEWAY_MASTER_KEY: MASTER })
const hooks = pluginHooks(apiKeyAuth, {}, deps)
let plain: string
let bound: string
let revoked: string

beforeAll(async () => {
  await deps.keys.refresh()
  const base = { description: '', allowedModels: null, role: null, expiresAt: null, createdBy: 'master' }
  plain = (await deps.keys.create({ ...base, name: 'plain', userPath: null })).secret
  bound = (await deps.keys.create({ ...base, name: 'bound', userPath: '/acme/team-a' })).secret
  const r = await deps.keys.create({ ...base, name: 'revoked', userPath: null })
  revoked = r.secret
  await deps.keys.revoke(r.record.id)
})

async function run(headers: Record<string, string>, clientIp = '127.0.0.1') {
  const ctx = makeContext({ headers, body: { model: 'x', messages: [] } })
  Object.defineProperty(ctx, 'clientIp', { value: clientIp })
  const decision = (await hooks.before!(ctx)) as Decision
  const body = decision.kind === 'respond' ? ((await decision.response.json()) as { error: Record<string, unknown> }) : undefined
  return { ctx, decision, status: decision.kind === 'respond' ? decision.response.status : 0, error: body?.error }
}

describe('authentication', () => {
  test('master and managed keys pass and set the principal', async () => {
    expect((await run({ authorization: `Bearer ${MASTER}` })).ctx.principal).toMatchObject({ method: 'master_key', id: 'master' })
    const { ctx, decision } = await run({ authorization: `Bearer ${plain}` })
    expect(decision.kind).toBe('continue')
    expect(ctx.principal).toMatchObject({ method: 'managed_key', keyHash: expect.stringMatching(/^[0-9a-f]{64}$/) })
  })

  test.each([
    ['missing', {}, 'no API key presented'],
    ['malformed', { authorization: 'Token abc' }, 'not "Bearer <key>"'],
    ['unknown', { authorization: 'Bearer sk-gw-nope' }, 'unknown API key'],
  ])('%s key → generic 401, precise reason on the context', async (_name, headers, reason) => {
    const { status, error, ctx } = await run(headers)
    expect(status).toBe(401)
    expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: '' })
    expect(String(error?.message)).not.toContain(reason)
    expect(ctx.authFailureReason).toContain(reason)
    expect(ctx.principal).toBeUndefined()
  })

  test('revoked key → 401 with the revocation as the reason', async () => {
    const { status, ctx } = await run({ authorization: `Bearer ${revoked}` })
    expect(status).toBe(401)
    expect(ctx.authFailureReason).toContain('revoked')
  })

  test('a burst of failures from one client is marked audit-suppressed, other clients are not', async () => {
    const marks: boolean[] = []
    for (let i = 0; i < 30; i++) marks.push((await run({ authorization: 'Bearer sk-gw-flood' }, '10.9.9.9')).ctx.auditSuppressed)
    expect(marks.slice(0, 20).every((m) => !m)).toBe(true)
    expect(marks.slice(20).every((m) => m)).toBe(true)
    expect((await run({ authorization: 'Bearer sk-gw-flood' }, '10.8.8.8')).ctx.auditSuppressed).toBe(false)
    expect(deps.authFailures.suppressed).toBeGreaterThanOrEqual(10)
  })
})

describe('user path', () => {
  test('a bound key attributes requests to its path and may narrow it', async () => {
    expect((await run({ authorization: `Bearer ${bound}` })).ctx.userPath).toBe('/acme/team-a')
    expect((await run({ authorization: `Bearer ${bound}`, 'x-gateway-user-path': '/acme/team-a/alice/' })).ctx.userPath).toBe('/acme/team-a/alice')
  })

  test('widening or leaving the subtree is 403 user_path_not_allowed', async () => {
    for (const path of ['/acme', '/', '/acme/team-b', '/acme/team-a-evil']) {
      const { status, error } = await run({ authorization: `Bearer ${bound}`, 'x-gateway-user-path': path })
      expect(status).toBe(403)
      expect(error).toMatchObject({ code: 'user_path_not_allowed' })
    }
  })

  test('a bad header is 400 invalid_request_error, also for unbound keys', async () => {
    for (const [key, path] of [
      [bound, '/acme/team-a/../../root'],
      [plain, '/a/%2e%2e'],
      [plain, '\\a'],
      [MASTER, '/a/./b'],
    ] as const) {
      const { status, error } = await run({ authorization: `Bearer ${key}`, 'x-gateway-user-path': path })
      expect(status).toBe(400)
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_user_path' })
    }
  })

  test('without a bound path the header sets it', async () => {
    expect((await run({ authorization: `Bearer ${plain}`, 'x-gateway-user-path': 'anyone/here' })).ctx.userPath).toBe('/anyone/here')
    expect((await run({ authorization: `Bearer ${plain}` })).ctx.userPath).toBeUndefined()
  })
})

describe('open mode', () => {
  test('without a master key and without managed keys, a request without a key is refused unless open mode is allowed', async () => {
    const closed = await makeDeps({})
    const decision = (await pluginHooks(apiKeyAuth, {}, closed).before!(makeContext({ body: { model: 'x', messages: [] } }))) as Decision
    expect(decision.kind === 'respond' && decision.response.status).toBe(401)
  })

  test('with GATEWAY_ALLOW_OPEN it runs open while there is no managed key; a key that exists closes it', async () => {
    const open = await makeDeps({ GATEWAY_ALLOW_OPEN: 'true' })
    await open.keys.refresh()
    const openHooks = pluginHooks(apiKeyAuth, {}, open)
    const ctx = makeContext({ body: { model: 'x', messages: [] } })
    expect(((await openHooks.before!(ctx)) as Decision).kind).toBe('continue')
    expect(ctx.principal).toMatchObject({ method: 'none', id: 'anonymous' })
    await open.keys.create({ name: 'k', description: '', userPath: null, allowedModels: null, role: null, expiresAt: null, createdBy: 'master' })
    const closed = (await openHooks.before!(makeContext({ body: { model: 'x', messages: [] } }))) as Decision
    expect(closed.kind === 'respond' && closed.response.status).toBe(401)
  })
})

test('a throttled address gets 401 auth_throttled with Retry-After, the right key included; the reason goes to the audit entry', async () => {
  const throttled = await makeDeps({ GATEWAY_MASTER_KEY: MASTER })
  const throttledHooks = pluginHooks(apiKeyAuth, {}, throttled)
  const attempt = async (key: string) => {
    const ctx = makeContext({ headers: { authorization: `Bearer ${key}` }, body: { model: 'x', messages: [] } })
    Object.defineProperty(ctx, 'clientIp', { value: '10.7.7.7' })
    const decision = (await throttledHooks.before!(ctx)) as Decision
    if (decision.kind !== 'respond') return { ctx, status: 0, retryAfter: null, error: undefined }
    return {
      ctx,
      status: decision.response.status,
      retryAfter: decision.response.headers.get('retry-after'),
      error: ((await decision.response.json()) as { error: Record<string, unknown> }).error,
    }
  }
  for (let i = 0; i < 30; i++) expect((await attempt(`sk-gw-guess-${i}`)).error).toMatchObject({ code: 'invalid_api_key' })
  const right = await attempt(MASTER)
  expect(right).toMatchObject({ status: 401, error: { type: 'authentication_error', code: 'auth_throttled' } })
  expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1)
  expect(right.ctx.principal).toBeUndefined()
  expect(right.ctx.authFailureReason).toContain('not checked')
})

describe('GATEWAY_REQUIRE_KEY_USER_PATH', () => {
  test('refuses a managed key without a bound path with 403 key_user_path_required; bound keys and the master key pass', async () => {
    const strict = await makeDeps({ GATEWAY_MASTER_KEY: MASTER, GATEWAY_REQUIRE_KEY_USER_PATH: 'true' })
    const strictHooks = pluginHooks(apiKeyAuth, {}, strict)
    const base = { description: '', allowedModels: null, role: null, expiresAt: null, createdBy: 'master' }
    const unbound = (await strict.keys.create({ ...base, name: 'unbound', userPath: null })).secret
    const boundKey = (await strict.keys.create({ ...base, name: 'bound', userPath: '/acme/team-a' })).secret
    const call = async (key: string, path?: string) => {
      const ctx = makeContext({ headers: { authorization: `Bearer ${key}`, ...(path ? { 'x-gateway-user-path': path } : {}) }, body: { model: 'x', messages: [] } })
      const decision = (await strictHooks.before!(ctx)) as Decision
      return { ctx, decision, body: decision.kind === 'respond' ? ((await decision.response.json()) as { error: Record<string, unknown> }) : undefined }
    }
    for (const path of [undefined, '/acme/team-b']) {
      const refused = await call(unbound, path)
      expect(refused.decision.kind === 'respond' && refused.decision.response.status).toBe(403)
      expect(refused.body?.error).toMatchObject({ code: 'key_user_path_required' })
    }
    expect((await call(boundKey, '/acme/team-a/alice')).ctx.userPath).toBe('/acme/team-a/alice')
    expect((await call(MASTER, '/acme/team-b')).ctx.userPath).toBe('/acme/team-b')
  })
})
