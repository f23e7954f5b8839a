import { beforeAll, describe, expect, test } from 'bun:test'
import type { Decision } from '../../src/pipeline/types.ts'
import { makeContext, makeDeps, pluginHooks } from '../../test/helpers/plugin-harness.ts'
import { apiKeyAuth } from './plugin.ts'

const MASTER = 'master-key-for-tests'
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

test('without a master key and without managed keys the gateway runs open; a key that exists closes it', async () => {
  const open = await makeDeps({})
  await open.keys.refresh()
  const openHooks = pluginHooks(apiKeyAuth, {}, open)
  const ctx = makeContext({ body: { model: 'x', messages: [] } })
  expect(((await openHooks.before!(ctx)) as Decision).kind).toBe('continue')
  expect(ctx.principal).toMatchObject({ method: 'none', id: 'anonymous' })
  await open.keys.create({ name: 'k', description: '', userPath: null, allowedModels: null, role: null, expiresAt: null, createdBy: 'master' })
  const closed = (await openHooks.before!(makeContext({ body: { model: 'x', messages: [] } }))) as Decision
  expect(closed.kind === 'respond' && closed.response.status).toBe(401)
})
