/**
 * Managed API keys end to end: the admin API creates, restricts and revokes keys; the official `openai` SDK uses
 * them against a real gateway in front of a mock OpenAI upstream.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { existsSync, readFileSync } from 'node:fs'
import OpenAI from 'openai'
import type { SecurityEvent } from '../../src/audit/security-events.ts'
import { startGateway } from '../helpers/gateway.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

// The credential throttle has its own suite (test/e2e/ingress-auth.test.ts); here a burst no test reaches, so the
// fuzzed refusals below cannot throttle this address for the tests after them.
const t = useGatewaySuite({ env: { VIRTUAL_MODELS: JSON.stringify([{ source: 'fast', target: 'openai/gpt-4o-mini' }]), GATEWAY_AUTH_FAILURE_BURST: '1000000' } })
const events: SecurityEvent[] = []
beforeAll(() => {
  t.gw.gateway.securityEvents = { record: (e) => events.push(e) }
})

const messages = [{ role: 'user' as const, content: 'hi' }]

interface KeyView {
  id: string
  key?: string
  name: string
  description: string
  redacted_key: string
  user_path: string | null
  allowed_models: string[] | null
  dashboard_enabled: boolean
  expires_at: string | null
  revoked_at: string | null
  status: string
}

async function admin(method: string, path: string, body?: unknown, key = t.master) {
  const res = await fetch(`${t.gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}

async function createKey(fields: Record<string, unknown>): Promise<KeyView & { key: string }> {
  const res = await fetch(`${t.gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
  })
  expect(res.status).toBe(201)
  expect(res.headers.get('cache-control')).toBe('no-store')
  return (await res.json()) as KeyView & { key: string }
}

const clientFor = (apiKey: string, headers: Record<string, string> = {}) => new OpenAI({ apiKey, baseURL: t.gw.baseURL, maxRetries: 0, defaultHeaders: headers })

describe('creating and reading keys', () => {
  test('POST /admin/keys returns the record and the secret once; reads never show it', async () => {
    const created = await createKey({
      name: 'Cursor on alice-laptop',
      description: 'IDE',
      user_path: 'acme//team-a/',
      allowed_models: ['fast'],
      expires_at: '2099-01-01T00:00:00+02:00',
    })
    expect(created.key).toMatch(/^sk-gw-[A-Za-z0-9_-]{43}$/)
    expect(created).toMatchObject({
      object: 'api_key',
      name: 'Cursor on alice-laptop',
      user_path: '/acme/team-a',
      allowed_models: ['fast'],
      dashboard_enabled: false,
      expires_at: '2098-12-31T22:00:00.000Z',
      revoked_at: null,
      status: 'active',
      created_by: 'master',
      redacted_key: `sk-gw-...${created.key.slice(-4)}`,
    })

    const one = await admin('GET', `/keys/${created.id}`)
    expect(one.status).toBe(200)
    expect(one.body.key).toBeUndefined()
    expect(JSON.stringify(one.body)).not.toContain(created.key.slice(6))
    const list = await admin('GET', '/keys?limit=100')
    expect(JSON.stringify(list.body)).not.toContain(created.key.slice(6))
    expect(list.body.keys.some((k: KeyView) => k.id === created.id)).toBe(true)
    expect(events.at(-1)).toMatchObject({ event_type: 'key.created', subject_id: created.id, principal_id: 'master', status_code: 201 })
  })

  test('list: paged with total, search, include_revoked, user_path subtree', async () => {
    const tag = `tag${Date.now()}`
    const a = await createKey({ name: `${tag} one`, user_path: '/paging/a' })
    const b = await createKey({ name: 'two', description: `about ${tag}`, user_path: '/paging' })
    const c = await createKey({ name: `${tag} three`, user_path: '/paging-other' })
    await admin('POST', `/keys/${c.id}/revoke`)

    const found = await admin('GET', `/keys?search=${tag.toUpperCase()}`)
    expect(found.body.keys.map((k: KeyView) => k.id).sort()).toEqual([a.id, b.id].sort())
    expect((await admin('GET', `/keys?search=${tag}&include_revoked=true`)).body.total).toBe(3)
    const subtree = await admin('GET', '/keys?user_path=/paging&include_revoked=true')
    expect(subtree.body.keys.map((k: KeyView) => k.id).sort()).toEqual([a.id, b.id].sort())
    // An empty query value counts as not given, as on every /admin route (the audit log reads it the same way).
    const unfiltered = await admin('GET', `/keys?search=${tag}&user_path=&limit=&include_revoked=true`)
    expect(unfiltered.status).toBe(200)
    expect(unfiltered.body).toMatchObject({ total: 3, limit: 25 })

    const page = await admin('GET', `/keys?search=${tag}&include_revoked=true&limit=2&offset=2`)
    expect(page.body).toMatchObject({ limit: 2, offset: 2, total: 3 })
    expect(page.body.keys).toHaveLength(1)
  })

  test('invalid input is a 400 GatewayError naming the field; unknown ids are 404', async () => {
    const cases: [unknown, string | null][] = [
      [{ name: 'x', user_path: '/a/../b' }, 'user_path'],
      [{ name: 'x', user_path: '/a/%2e%2e' }, 'user_path'],
      [{ name: 'x', user_path: 'a\\b' }, 'user_path'],
      [{ name: 'x', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'x', expires_at: '2099-01-01T00:00:00' }, 'expires_at'],
      [{ name: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', allowed_models: [] }, 'allowed_models'],
      [{ name: 'x', allowed_models: ['op*en'] }, 'allowed_models'],
      [{ name: 'x', allowed_models: [''] }, 'allowed_models'],
      [{ name: 'x', dashboard_enabled: 'yes' }, 'dashboard_enabled'],
      [{ name: 'x', is_admin: true }, 'is_admin'],
      [{ name: '' }, 'name'],
      [{}, 'name'],
      ['{"name": ', null],
    ]
    for (const [body, param] of cases) {
      const { status, body: res } = await admin('POST', '/keys', body)
      expect({ body, status }).toEqual({ body, status: 400 })
      expect(res.error).toMatchObject({ type: 'invalid_request_error', param, status_code: 400, provider: '' })
    }
    const k = await createKey({ name: 'patch target' })
    expect((await admin('PATCH', `/keys/${k.id}`, { expires_at: '2000-01-01T00:00:00Z' })).body.error.param).toBe('expires_at')
    expect((await admin('PATCH', `/keys/${k.id}`, { key_hash: 'x' })).body.error.param).toBe('key_hash')
    expect((await admin('PATCH', `/keys/${k.id}`, {})).status).toBe(400)

    for (const [method, path] of [
      ['GET', '/keys/nope'],
      ['PATCH', '/keys/nope'],
      ['POST', '/keys/nope/revoke'],
    ] as const) {
      const { status, body } = await admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined)
      expect(status).toBe(404)
      expect(body.error).toMatchObject({ type: 'not_found_error', status_code: 404 })
    }
  })
})

describe('using keys from the OpenAI SDK', () => {
  test('a revoked key raises AuthenticationError on the very next call; revocation is permanent', async () => {
    const k = await createKey({ name: 'to revoke' })
    const client = clientFor(k.key)
    const ok = await client.chat.completions.create({ model: 'openai/gpt-4o', messages })
    expect(ok.choices[0]!.message.content).toBeTruthy()

    const revoked = await admin('POST', `/keys/${k.id}/revoke`)
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) })
    expect(events.at(-1)).toMatchObject({ event_type: 'key.revoked', subject_id: k.id })

    const err = await client.chat.completions.create({ model: 'openai/gpt-4o', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(err.status).toBe(401)
    expect(err.message).not.toContain('revoked')
    expect(await client.models.list().catch((e) => e)).toBeInstanceOf(OpenAI.AuthenticationError)

    const patch = await admin('PATCH', `/keys/${k.id}`, { name: 'revive me' })
    expect(patch.status).toBe(409)
    expect((await admin('POST', `/keys/${k.id}/revoke`)).status).toBe(200)
    expect(await client.chat.completions.create({ model: 'openai/gpt-4o', messages }).catch((e) => e)).toBeInstanceOf(OpenAI.AuthenticationError)
  })

  test('allowed_models: other models are 403 PermissionDeniedError; /v1/models lists only what the key may use', async () => {
    const k = await createKey({ name: 'restricted', allowed_models: ['fast'] })
    const client = clientFor(k.key)
    await client.chat.completions.create({ model: 'fast', messages })
    expect(t.openaiMock.requests.at(-1)!.body.model).toBe('gpt-4o-mini')

    const before = t.openaiMock.requests.length
    const err = await client.chat.completions.create({ model: 'openai/gpt-4o', messages }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect(err.code).toBe('model_not_allowed')
    expect(t.openaiMock.requests.length).toBe(before)
    expect(await client.responses.create({ model: 'openai/gpt-4o', input: 'hi' }).catch((e) => e)).toBeInstanceOf(OpenAI.PermissionDeniedError)

    const ids: string[] = []
    for await (const m of client.models.list()) ids.push(m.id)
    expect(ids).toEqual(['fast'])
    expect(await client.models.retrieve('openai/gpt-4o').catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError)
    expect((await client.models.retrieve('fast')).id).toBe('fast')
  })

  test('a provider pattern allows its selectors and the virtual models that resolve into it; a PATCH applies at once', async () => {
    const k = await createKey({ name: 'openai only', allowed_models: ['openai/*'] })
    const client = clientFor(k.key)
    const ids: string[] = []
    for await (const m of client.models.list()) ids.push(m.id)
    expect(ids).toContain('openai/gpt-4o')
    expect(ids).toContain('fast')
    await client.chat.completions.create({ model: 'gpt-4o', messages })

    expect((await admin('PATCH', `/keys/${k.id}`, { allowed_models: ['openai/gpt-4o-mini'] })).status).toBe(200)
    expect(events.at(-1)).toMatchObject({ event_type: 'key.updated', subject_id: k.id, message: expect.stringContaining('allowed_models') })
    expect(await client.chat.completions.create({ model: 'gpt-4o', messages }).catch((e) => e)).toBeInstanceOf(OpenAI.PermissionDeniedError)
    await client.chat.completions.create({ model: 'fast', messages })

    await admin('PATCH', `/keys/${k.id}`, { allowed_models: null })
    await client.chat.completions.create({ model: 'gpt-4o', messages })
  })

  test('user paths: narrowing is accepted, widening is 403, traversal is 400', async () => {
    const k = await createKey({ name: 'team key', user_path: '/acme/team-a' })
    await clientFor(k.key).chat.completions.create({ model: 'fast', messages })
    await clientFor(k.key, { 'X-Gateway-User-Path': '/acme/team-a/alice' }).chat.completions.create({ model: 'fast', messages })

    const refusal = (path: string) =>
      clientFor(k.key, { 'X-Gateway-User-Path': path })
        .chat.completions.create({ model: 'fast', messages })
        .catch((e) => e)
    for (const path of ['/acme', '/acme/team-b', '/acme/team-a-evil']) {
      const err = await refusal(path)
      expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError)
      expect(err.code).toBe('user_path_not_allowed')
    }
    for (const path of ['/acme/team-a/../../root', '/acme/team-a/%2e%2e', '/acme/team-a/.']) {
      const err = await refusal(path)
      expect(err).toBeInstanceOf(OpenAI.BadRequestError)
      expect(err.type).toBe('invalid_request_error')
    }
  })

  test('an expired key is 401', async () => {
    const k = await createKey({ name: 'short-lived', expires_at: new Date(Date.now() + 1200).toISOString() })
    const client = clientFor(k.key)
    await client.chat.completions.create({ model: 'fast', messages })
    await Bun.sleep(1300)
    expect(await client.chat.completions.create({ model: 'fast', messages }).catch((e) => e)).toBeInstanceOf(OpenAI.AuthenticationError)
    expect((await admin('GET', `/keys/${k.id}`)).body.status).toBe('expired')
  })

  test('malformed and unknown credentials are one generic 401 GatewayError', async () => {
    const valid = (await createKey({ name: 'valid' })).key
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: `Basic ${btoa(`user:${valid}`)}` },
      { authorization: `Bearer ${valid} ${valid}` },
      { authorization: `Bearer ${valid.slice(0, -1)}` },
      { authorization: `Bearer ${valid}x` },
      { authorization: `Bearer ${'A'.repeat(4000)}` },
      { 'x-api-key': '' },
      { 'x-api-key': `${valid.toUpperCase()}` },
    ]
    const bodies = new Set<string>()
    for (const headers of headerSets) {
      const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'fast', messages }),
      })
      expect({ headers, status: res.status }).toEqual({ headers, status: 401 })
      const body = (await res.json()) as { error: Record<string, unknown> }
      expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', provider: '', status_code: 401 })
      bodies.add(JSON.stringify(body))
    }
    expect(bodies.size).toBe(1)
  })

  test('property: random Authorization values over HTTP get 200 only for the valid key, otherwise 401, never a 5xx', async () => {
    const valid = (await createKey({ name: 'fuzz' })).key
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
          fc.nat({ max: valid.length }).map((n) => `Bearer ${valid.slice(0, n)}`),
        ),
        async (value) => {
          let headers: Headers
          try {
            headers = new Headers({ authorization: value })
          } catch {
            return
          }
          const res = await fetch(`${t.gw.baseURL}/models`, { headers })
          await res.arrayBuffer()
          const accepted = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.get('authorization') ?? '')?.[1]
          if (accepted === valid || accepted === t.master) expect(res.status).toBe(200)
          else expect(res.status).toBe(401)
        },
      ),
      { numRuns: 150 },
    )
  })

  test('unknown /v1 routes stay 404 for a managed key (the admin guard does not leak onto /v1)', async () => {
    const k = await createKey({ name: 'route check' })
    const res = await fetch(`${t.gw.baseURL}/nope`, { headers: { authorization: `Bearer ${k.key}` } })
    expect(res.status).toBe(404)
  })
})

describe('admin access', () => {
  test('master key and dashboard-enabled keys are admitted; plain keys get 403; invalid ones 401', async () => {
    const dash = await createKey({ name: 'dashboard', dashboard_enabled: true })
    const plain = await createKey({ name: 'plain' })

    expect((await admin('GET', '/whoami')).body).toMatchObject({ principal_id: 'master', auth_method: 'master_key' })
    expect((await admin('GET', '/whoami', undefined, dash.key)).body).toMatchObject({ principal_id: dash.id, auth_method: 'managed_key', key_id: dash.id })
    const createdByDash = await admin('POST', '/keys', { name: 'made by dashboard' }, dash.key)
    expect(createdByDash.status).toBe(201)
    expect(createdByDash.body.created_by).toBe(dash.id)

    for (const path of ['/whoami', '/keys']) {
      const denied = await admin('GET', path, undefined, plain.key)
      expect(denied.status).toBe(403)
      expect(denied.body.error).toMatchObject({ code: 'admin_access_denied', status_code: 403 })
      const invalid = await admin('GET', path, undefined, 'sk-gw-not-a-key')
      expect(invalid.status).toBe(401)
      expect(invalid.body.error.type).toBe('authentication_error')
    }

    await admin('POST', `/keys/${dash.id}/revoke`)
    expect((await admin('GET', '/whoami', undefined, dash.key)).status).toBe(401)
  })

  test('POST /admin/session signs in and records dashboard.sign_in, failures dashboard.sign_in_failed', async () => {
    const dash = await createKey({ name: 'signer', dashboard_enabled: true })
    const plain = await createKey({ name: 'no dashboard' })
    const ok = await admin('POST', '/session', undefined, dash.key)
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ principal_id: dash.id, auth_method: 'managed_key' })
    expect(events.at(-1)).toMatchObject({ event_type: 'dashboard.sign_in', principal_id: dash.id, auth_key_id: dash.id, status_code: 200 })

    expect((await admin('POST', '/session', undefined, plain.key)).status).toBe(403)
    expect(events.at(-1)).toMatchObject({ event_type: 'dashboard.sign_in_failed', status_code: 403 })
    expect((await admin('POST', '/session', undefined, 'wrong')).status).toBe(401)
    expect(events.at(-1)).toMatchObject({ event_type: 'dashboard.sign_in_failed', status_code: 401 })
    expect(JSON.stringify(events)).not.toContain(dash.key)
  })

  test('without a master key (open mode allowed) the admin API is closed (dashboard keys included) and /v1 runs open', async () => {
    const open = await startGateway({ GATEWAY_ALLOW_OPEN: 'true', OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: t.openaiMock.url })
    try {
      const whoami = await fetch(`${open.url}/admin/whoami`)
      expect(whoami.status).toBe(401)
      expect(((await whoami.json()) as any).error.code).toBe('admin_disabled')
      const session = await fetch(`${open.url}/admin/session`, { method: 'POST', headers: { authorization: 'Bearer anything' } })
      expect(session.status).toBe(401)
      const models = await fetch(`${open.baseURL}/models`)
      expect(models.status).toBe(200)
    } finally {
      await open.stop()
    }
  })
})

test('the secret appears nowhere in the SQLite files; its hash does', async () => {
  const k = await createKey({ name: 'hash check' })
  await clientFor(k.key).chat.completions.create({ model: 'fast', messages })
  const dbPath = t.gw.gateway.config.database.path
  const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter((p) => existsSync(p))
  const bytes = Buffer.concat(files.map((p) => readFileSync(p)))
  const randomPart = k.key.slice('sk-gw-'.length)
  expect(bytes.includes(Buffer.from(randomPart))).toBe(false)
  expect(bytes.includes(Buffer.from(randomPart.slice(0, 20)))).toBe(false)
  expect(bytes.includes(Buffer.from(Buffer.from(randomPart, 'base64url').toString('hex')))).toBe(false)
  const hash = new Bun.CryptoHasher('sha256').update(k.key).digest('hex')
  expect(bytes.includes(Buffer.from(hash))).toBe(true)
})
