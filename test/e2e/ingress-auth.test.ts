/**
 * Who is calling (issue 26, defects 9, 10, 11 and parts of 12), through real HTTP: the gateway refuses to start
 * open or with a short master key; JSON endpoints take only `application/json` (415 otherwise, audited); every
 * credential check is throttled and a throttled address is refused before its credential is looked at (401
 * `auth_throttled`, Retry-After); the dashboard, the admin API and the base URL carry a strict CSP and no-framing
 * headers, and there is no CDN-backed reference page; `/ready` tells anonymous callers the status alone; logged
 * headers never carry a credential; unbound keys can be refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { spawnGateway } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { postHead, rawHttp } from '../helpers/raw-http.ts'

const MASTER = 'master-key-ingress-auth-0123456789abcdef'
// Neither key has a credential's shape: only their known values can redact them.
const UPSTREAM_KEY = 'upstream-key-ingress-auth-0000000000'
const chat = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
const anthropicBody = JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
const mcpInitialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ingress-auth-test', version: '1' } },
})
const mcpPost = (url: string, key: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: mcpInitialize,
  })
/** The GatewayError fields of an error answer: `error` itself, or a JSON-RPC error's `error.data` on /mcp. */
const gatewayErrorOf = async (res: Response) => {
  const body = (await res.json()) as { error: { code: unknown; type?: string; data?: { code: string; type: string } } }
  return (body.error.data ?? body.error) as { code: string; type: string }
}

let mock: MockUpstream
let gw: RunningGateway
let audit: AuditAdmin

beforeAll(async () => {
  mock = startMockOpenAI()
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: mock.url,
    LOGGING_LOG_HEADERS: 'true',
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '10',
    GATEWAY_REQUIRE_KEY_USER_PATH: 'true',
  })
  audit = auditAdmin(gw.url, MASTER)
}, 30_000)
afterAll(async () => {
  await gw?.stop()
  mock?.stop()
})

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

async function createKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await fetch(`${gw.url}/admin/keys`, { method: 'POST', headers: { ...bearer(MASTER), 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; key: string }
}

describe('open mode and the master key (defects 9 and 10)', () => {
  test('without a master key the gateway refuses to start, saying why and how to opt in', async () => {
    const started = spawnGateway({ OPENAI_API_KEY: UPSTREAM_KEY, OPENAI_BASE_URL: mock.url })
    const failure = (await started.then(
      async (running) => {
        await running.stop()
        return undefined
      },
      (error: Error) => error.message,
    )) as string | undefined
    expect(failure).toContain('Refusing to start: GATEWAY_MASTER_KEY is not set')
    expect(failure).toContain('GATEWAY_ALLOW_OPEN=true')
  }, 30_000)

  test('GATEWAY_ALLOW_OPEN=true runs /v1 open on purpose, and a cross-site text/plain POST is still refused (415)', async () => {
    const open = await spawnGateway({ GATEWAY_ALLOW_OPEN: 'true', OPENAI_API_KEY: UPSTREAM_KEY, OPENAI_BASE_URL: mock.url })
    try {
      expect((await fetch(`${open.url}/v1/models`)).status).toBe(200)
      const before = mock.requests.length
      // What any web page can make a browser send without a CORS preflight.
      const crossSite = await fetch(`${open.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: chat })
      expect(crossSite.status).toBe(415)
      expect(mock.requests.length).toBe(before)
      const json = await fetch(`${open.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat })
      expect(json.status).toBe(200)
      expect(open.output()).toContain('GATEWAY_ALLOW_OPEN=true')
    } finally {
      await open.stop()
    }
  }, 30_000)

  test('in a gateway built without GATEWAY_ALLOW_OPEN, a request without a key is refused even with no key anywhere', async () => {
    const closed = await startGateway({ OPENAI_API_KEY: UPSTREAM_KEY, OPENAI_BASE_URL: mock.url })
    try {
      const res = await fetch(`${closed.baseURL}/models`)
      expect(res.status).toBe(401)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key')
    } finally {
      await closed.stop()
    }
  })

  test('a master key shorter than 32 characters stops start-up with a clear message that does not echo it', async () => {
    const failure = await spawnGateway({ GATEWAY_MASTER_KEY: 'short-master-key-1234', OPENAI_API_KEY: UPSTREAM_KEY }).then(
      async (running) => {
        await running.stop()
        return 'started'
      },
      (error: Error) => error.message,
    )
    expect(failure).toContain('master_key (from env GATEWAY_MASTER_KEY): expected at least 32 characters')
    expect(failure).not.toContain('short-master-key-1234')
  }, 30_000)
})

describe('JSON endpoints take application/json only (defect 9)', () => {
  const post = (path: string, headers: Record<string, string>, body: BodyInit | null = chat) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...bearer(MASTER), ...headers }, body })

  test.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form encoding (curl -d)', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON look-alike', 'application/json-patch+json'],
    ['text/json', 'text/json'],
  ])('%s is a 415 GatewayError before anything is routed', async (_what, contentType) => {
    const before = mock.requests.length
    const res = await post('/v1/chat/completions', { 'content-type': contentType })
    expect(res.status).toBe(415)
    expect(await res.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'unsupported_media_type',
        param: 'content-type',
        provider: '',
        status_code: 415,
        message: expect.stringContaining('application/json'),
      },
    })
    expect(mock.requests.length).toBe(before)
  })

  test('application/json with a charset, in any case, is accepted', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
      expect({ contentType, status: (await post('/v1/chat/completions', { 'content-type': contentType })).status }).toEqual({ contentType, status: 200 })
    }
  })

  test('a body without any Content-Type is refused too (a browser sends one cross-site without asking); no body is the "empty" 400', async () => {
    const raw = await rawHttp(gw.url, `${postHead('/v1/chat/completions', new URL(gw.url).host, { ...bearer(MASTER), 'content-length': String(chat.length) })}${chat}`)
    const answer = await raw.waitFor('}}', 5000)
    raw.end()
    expect(answer).toStartWith('HTTP/1.1 415')
    expect(answer).toContain('"code":"unsupported_media_type"')
    const empty = await post('/v1/chat/completions', {}, null)
    expect(empty.status).toBe(400)
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe('invalid_json')
  })

  test('/v1/messages answers the 415 in Anthropic’s shape, and the refusal is audited', async () => {
    const requestId = crypto.randomUUID()
    const res = await post('/v1/messages', { 'content-type': 'text/plain', 'x-request-id': requestId }, anthropicBody)
    expect(res.status).toBe(415)
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'unsupported_media_type' } })
    const entry = await audit.entryFor(requestId)
    expect(entry).toMatchObject({ status_code: 415, path: '/v1/messages', error_type: 'invalid_request_error' })
  })

  test('admin bodies too: a form-encoded POST /admin/keys is a 415', async () => {
    const res = await post('/admin/keys', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x')
    expect(res.status).toBe(415)
    expect(await res.json()).toMatchObject({ error: { code: 'unsupported_media_type' } })
  })
})

describe('credential checks are throttled everywhere; a throttled address is refused before its credential is checked (defect 10)', () => {
  const BURST = 5
  let guarded: RunningGateway
  beforeAll(async () => {
    guarded = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: UPSTREAM_KEY,
      OPENAI_BASE_URL: mock.url,
      GATEWAY_AUTH_FAILURE_BURST: String(BURST),
      GATEWAY_AUTH_FAILURE_REFILL_PER_SECOND: '5',
    })
  })
  afterAll(() => guarded?.stop())

  type Surface = (key: string) => Promise<Response>
  const surfaces: Record<string, Surface> = {
    '/v1 with Authorization: Bearer': (key) => fetch(`${guarded.baseURL}/models`, { headers: bearer(key) }),
    '/v1/messages with x-api-key': (key) =>
      fetch(`${guarded.baseURL}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: anthropicBody,
      }),
    '/admin/keys (the admin guard)': (key) => fetch(`${guarded.url}/admin/keys`, { headers: bearer(key) }),
    'POST /admin/session (dashboard sign-in)': (key) => fetch(`${guarded.url}/admin/session`, { method: 'POST', headers: bearer(key) }),
    '/metrics': (key) => fetch(`${guarded.url}/metrics`, { headers: bearer(key) }),
    '/ready with a credential': (key) => fetch(`${guarded.url}/ready`, { headers: bearer(key) }),
    '/mcp (JSON-RPC initialize)': (key) => mcpPost(guarded.url, key),
  }
  const codeOf = async (res: Response) => (await gatewayErrorOf(res)).code

  test.each(Object.keys(surfaces))(
    '%s',
    async (name) => {
      const surface = surfaces[name]!
      // A full burst back for this address (5 tokens at 5 per second).
      await Bun.sleep(1100)
      for (let i = 0; i < BURST; i++) {
        const res = await surface(`wrong-${i}-${crypto.randomUUID()}`)
        expect({ i, status: res.status, code: await codeOf(res) }).toEqual({ i, status: 401, code: 'invalid_api_key' })
      }
      // The right key, while throttled: refused like a wrong one, with the time to wait.
      const right = await surface(MASTER)
      expect(right.status).toBe(401)
      const retryAfter = Number(right.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(await gatewayErrorOf(right)).toMatchObject({ type: 'authentication_error', code: 'auth_throttled' })
      await Bun.sleep(retryAfter * 1000)
      const after = await surface(MASTER)
      expect(after.status).toBeLessThan(300)
      await after.arrayBuffer()
    },
    15_000,
  )

  test('a client repeating its revoked key gets 401 invalid_api_key every time (never throttled, never 429), and a good key from the same address keeps working', async () => {
    await Bun.sleep(1100)
    const revoked = (await (
      await fetch(`${guarded.url}/admin/keys`, { method: 'POST', headers: { ...bearer(MASTER), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'to revoke' }) })
    ).json()) as { id: string; key: string }
    await fetch(`${guarded.url}/admin/keys/${revoked.id}/revoke`, { method: 'POST', headers: bearer(MASTER) })
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${guarded.baseURL}/models`, { headers: bearer(revoked.key) })
      expect({ i, status: res.status, code: await codeOf(res) }).toEqual({ i, status: 401, code: 'invalid_api_key' })
      if (i % 5 === 0) expect((await fetch(`${guarded.baseURL}/models`, { headers: bearer(MASTER) })).status).toBe(200)
    }
  })
})

describe('browser protections and the API reference (defect 11)', () => {
  const expectProtected = (res: Response) => {
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
  }

  test('the dashboard page: strict CSP, no inline or foreign script, its own assets under /dashboard/assets/', async () => {
    const res = await fetch(`${gw.url}/dashboard`)
    expect(res.status).toBe(200)
    expectProtected(res)
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    const html = await res.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!)
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true)
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true)
    for (const asset of assets) {
      const file = await fetch(`${gw.url}${asset}`)
      expect(file.status).toBe(200)
      expect(file.headers.get('content-type')).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/)
      expectProtected(file)
      await file.arrayBuffer()
    }
    expect((await fetch(`${gw.url}/dashboard/assets/nope.js`)).status).toBe(404)
  })

  test('admin answers, success and refusal alike, and the base URL carry the same protections', async () => {
    for (const path of ['/admin/whoami', '/admin/keys', '/admin/audit/log', '/admin/usage/summary', '/admin/workflows']) {
      const ok = await fetch(`${gw.url}${path}`, { headers: bearer(MASTER) })
      expect({ path, status: ok.status }).toEqual({ path, status: 200 })
      expectProtected(ok)
      const refused = await fetch(`${gw.url}${path}`)
      expect({ path, status: refused.status }).toEqual({ path, status: 401 })
      expectProtected(refused)
    }
    expectProtected(await fetch(`${gw.url}/admin/session`, { method: 'POST', headers: bearer(MASTER) }))
    const root = await fetch(`${gw.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' })
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/dashboard')
    expectProtected(root)
  })

  test('no reference page runs a CDN script: /openapi leads to the document, /openapi/json is the document', async () => {
    const page = await fetch(`${gw.url}/openapi`, { redirect: 'manual' })
    expect(page.status).toBe(302)
    expect(page.headers.get('location')).toBe('/openapi/json')
    const doc = await fetch(`${gw.url}/openapi/json`)
    expect(doc.headers.get('content-type')).toContain('application/json')
    expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\./)
  })
})

describe('/ready (item 12)', () => {
  test('anonymous callers get the status alone; an admin credential gets the details; a wrong one a 401', async () => {
    const anonymous = await fetch(`${gw.url}/ready`)
    expect(anonymous.status).toBe(200)
    expect(await anonymous.json()).toEqual({ status: 'ready' })
    const detailed = (await (await fetch(`${gw.url}/ready`, { headers: bearer(MASTER) })).json()) as Record<string, unknown>
    expect(detailed).toMatchObject({ status: 'ready', models_loaded: true, store: { backend: 'sqlite' }, audit: { state: expect.any(String) } })
    expect(Array.isArray(detailed.snapshots)).toBe(true)
    expect((await fetch(`${gw.url}/ready`, { headers: bearer('not-a-key-at-all') })).status).toBe(401)
    const plain = await createKey({ name: 'no admin', user_path: '/ready-test' })
    expect((await fetch(`${gw.url}/ready`, { headers: bearer(plain.key) })).status).toBe(403)
  })
})

describe('unbound keys and user paths (item 12)', () => {
  test('with GATEWAY_REQUIRE_KEY_USER_PATH an unbound key is refused with 403; a bound key may only narrow its path', async () => {
    // An unbound key may exist only with an admin role (or from before the setting): /v1 still refuses it.
    const unbound = await createKey({ name: 'unbound', role: 'viewer' })
    const bound = await createKey({ name: 'bound', user_path: '/acme/team-a' })
    const call = (key: string, path?: string) =>
      fetch(`${gw.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json', ...(path ? { 'x-gateway-user-path': path } : {}) },
        body: chat,
      })
    const refused = await call(unbound.key, '/acme/team-b')
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('key_user_path_required')
    expect((await call(bound.key, '/acme/team-a/alice')).status).toBe(200)
    expect((await call(bound.key, '/acme/team-b')).status).toBe(403)
    // The MCP endpoint follows the same rule.
    const mcpRefused = await mcpPost(gw.url, unbound.key)
    expect(mcpRefused.status).toBe(403)
    expect(await gatewayErrorOf(mcpRefused)).toMatchObject({ code: 'key_user_path_required' })
    expect((await mcpPost(gw.url, bound.key)).status).toBe(200)
  })

  test('with GATEWAY_REQUIRE_KEY_USER_PATH an API key cannot be made, or changed to be, unbound', async () => {
    const admin = (method: string, path: string, body: unknown) =>
      fetch(`${gw.url}/admin${path}`, { method, headers: { ...bearer(MASTER), 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const made = await admin('POST', '/keys', { name: 'would be unbound' })
    expect(made.status).toBe(400)
    expect(await gatewayErrorOf(made)).toMatchObject({ code: 'user_path_required', param: 'user_path' })
    const bound = await createKey({ name: 'to unbind', user_path: '/acme/team-a' })
    const changed = await admin('PATCH', `/keys/${bound.id}`, { user_path: null })
    expect(changed.status).toBe(400)
    expect(await gatewayErrorOf(changed)).toMatchObject({ code: 'user_path_required' })
  })
})

describe('logged headers never carry a credential (item 12)', () => {
  test('by name, by shape and by known value (the master key, the provider key)', async () => {
    const requestId = crypto.randomUUID()
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        ...bearer(MASTER),
        'content-type': 'application/json',
        'x-request-id': requestId,
        'x-forwarded-authorization': 'opaque-upstream-session-0123',
        apikey: 'opaque-apikey-value',
        'x-partner-key': 'opaque-partner-value',
        'x-forwarded-for-basic': `Basic ${btoa('alice:hunter2')}`,
        'x-aws-id': 'AKIAIOSFODNN7EXAMPLE',
        'x-copied-master': `copy of ${MASTER}`,
        'x-copied-provider': `was ${UPSTREAM_KEY}`,
        'x-plain': 'stays',
      },
      body: chat,
    })
    expect(res.status).toBe(200)
    const entry = await audit.entryFor(requestId)
    const headers = entry.data?.request_headers as Record<string, string>
    for (const name of ['authorization', 'x-forwarded-authorization', 'apikey', 'x-partner-key', 'x-forwarded-for-basic', 'x-aws-id', 'x-copied-master', 'x-copied-provider']) {
      expect({ name, value: headers[name] }).toEqual({ name, value: '[REDACTED]' })
    }
    expect(headers['x-plain']).toBe('stays')
    const stored = JSON.stringify(entry)
    for (const secret of [MASTER, UPSTREAM_KEY, 'hunter2', btoa('alice:hunter2'), 'AKIAIOSFODNN7EXAMPLE', 'opaque-partner-value']) expect(stored).not.toContain(secret)
  })
})
