/**
 * Tenant isolation across every route the gateway serves (issue 26). Two tenants, each an API key and a scoped
 * auditor under its own user path (alice under /acme/team-a, bob under /globex), and an attacker with no key or a
 * wrong one. The suite walks every route the HTTP app registers: each is listed below as public, a /v1 endpoint
 * row (with the request that exercises it), an /admin route, or an /mcp route. A route added later without a line
 * here fails the first test; a line here makes the route part of every check below.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ENDPOINTS, type EndpointId } from '../../src/protocols/endpoints.ts'
import { createHttpApp } from '../../src/http/server.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { openaiError, serveRecording } from '../helpers/mock-openai-upstream.ts'
import { connectMcp, rawMcpPost } from '../helpers/mcp-client.ts'
import { type MockMcpServer, startMockMcpServer } from '../helpers/mock-mcp-server.ts'

let mcpUpstream: MockMcpServer
/** A provider whose every answer is a 503, the primary of a failover chain that ends on a model alice may not use. */
const down = serveRecording(() => openaiError(503, 'The engine is currently overloaded.', 'server_error', null))
afterAll(() => down.stop())
// Registered before the suite's own beforeAll, so the MCP server runs when the gateway's configuration is written.
beforeAll(async () => {
  mcpUpstream = await startMockMcpServer({ tools: [{ name: 'lookup' }] })
})
afterAll(() => mcpUpstream?.stop())

const t = useGatewaySuite({
  families: ['openai', 'anthropic'],
  env: {
    LOGGING_LOG_BODIES: 'true',
    LOGGING_LOG_HEADERS: 'true',
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
    // Dashboard SSO on (its provider need not answer), so its routes are registered and classified here too.
    OIDC_ISSUER: 'http://127.0.0.1:9/realms/none',
    OIDC_CLIENT_ID: 'tenant-isolation',
    OIDC_CLIENT_SECRET: 'tenant-isolation-client-secret',
    OIDC_SESSION_SECRET: 'tenant-isolation-session-secret-0123456789',
  },
  yaml: () => `providers:
  down: { type: openai, api_key: k, base_url: "${down.origin}/v1", models: [cheap] }
workflows:
  - name: default
    features: { cache: true, failover: true }
    plugins:
      response-cache: { ttl_seconds: 60 }
      failover: { max_retries: 0, targets: { down/cheap: [openai/gpt-4o-mini] } }
mcp:
  servers:
    tools:
      url: ${mcpUpstream.url}
`,
})

interface Probe {
  method: string
  path: string
  body?: unknown
}

/** A speech-to-text upload (a multipart form: the body is sent as it is). */
function audioForm(marker: string): FormData {
  const form = new FormData()
  form.append('model', 'openai/whisper-1')
  form.append('prompt', marker)
  form.append('file', new File([`audio:${marker}`], 'probe.mp3', { type: 'audio/mpeg' }))
  return form
}

/** An image edit upload (a multipart form: the body is sent as it is). */
function imageEditForm(marker: string): FormData {
  const form = new FormData()
  form.append('model', 'openai/gpt-image-1')
  form.append('prompt', marker)
  form.append('image', new File([`image:${marker}`], 'probe.png', { type: 'image/png' }))
  return form
}

/** A request to each /v1 row that a tenant may legitimately send; `cached` when the answer may come from the response cache. */
const V1_PROBES: Record<EndpointId, (marker: string) => Probe> = {
  'models.list': () => ({ method: 'GET', path: '/v1/models' }),
  'models.get': () => ({ method: 'GET', path: '/v1/models/openai/gpt-4o-mini' }),
  'chat.completions': (marker) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `echo:${marker}` }] },
  }),
  responses: (marker) => ({ method: 'POST', path: '/v1/responses', body: { model: 'openai/gpt-4o-mini', input: `echo:${marker}` } }),
  messages: (marker) => ({
    method: 'POST',
    path: '/v1/messages',
    body: { model: 'anthropic/claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: `echo:${marker}` }] },
  }),
  'messages.count_tokens': (marker) => ({
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: { model: 'anthropic/claude-sonnet-4-5', messages: [{ role: 'user', content: `echo:${marker}` }] },
  }),
  completions: (marker) => ({ method: 'POST', path: '/v1/completions', body: { model: 'openai/gpt-3.5-turbo-instruct', prompt: `echo:${marker}` } }),
  embeddings: (marker) => ({ method: 'POST', path: '/v1/embeddings', body: { model: 'openai/text-embedding-3-small', input: `echo:${marker}` } }),
  passthrough: (marker) => ({
    method: 'POST',
    path: '/p/openai/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `echo:${marker}` }] },
  }),
  'images.generations': (marker) => ({ method: 'POST', path: '/v1/images/generations', body: { model: 'openai/gpt-image-1', prompt: `echo:${marker}` } }),
  'responses.input_tokens': (marker) => ({ method: 'POST', path: '/v1/responses/input_tokens', body: { model: 'openai/gpt-4o-mini', input: `echo:${marker}` } }),
  // A stored response's routes name an id; one nobody made here is the 404 another tenant's id gets.
  'responses.retrieve': (marker) => ({ method: 'GET', path: `/v1/responses/resp_${marker}` }),
  'responses.delete': (marker) => ({ method: 'DELETE', path: `/v1/responses/resp_${marker}` }),
  'responses.cancel': (marker) => ({ method: 'POST', path: `/v1/responses/resp_${marker}/cancel` }),
  'responses.input_items': (marker) => ({ method: 'GET', path: `/v1/responses/resp_${marker}/input_items` }),
  'audio.speech': (marker) => ({ method: 'POST', path: '/v1/audio/speech', body: { model: 'openai/tts-1', input: `echo:${marker}`, voice: 'alloy' } }),
  moderations: (marker) => ({ method: 'POST', path: '/v1/moderations', body: { model: 'openai/omni-moderation-latest', input: `echo:${marker}` } }),
  rerank: (marker) => ({ method: 'POST', path: '/v1/rerank', body: { model: 'openai/rerank-mini', query: `echo:${marker}`, documents: ['a', 'b'] } }),
  'images.edits': (marker) => ({ method: 'POST', path: '/v1/images/edits', body: imageEditForm(marker) }),
  'audio.transcriptions': (marker) => ({ method: 'POST', path: '/v1/audio/transcriptions', body: audioForm(marker) }),
  'audio.translations': (marker) => ({ method: 'POST', path: '/v1/audio/translations', body: audioForm(marker) }),
  'files.create': (marker) => ({ method: 'POST', path: '/v1/files', body: fileForm(marker) }),
  'files.list': () => ({ method: 'GET', path: '/v1/files' }),
  // A file's routes name an id; one nobody made here is the 404 another tenant's id gets.
  'files.retrieve': (marker) => ({ method: 'GET', path: `/v1/files/file-${marker}` }),
  'files.content': (marker) => ({ method: 'GET', path: `/v1/files/file-${marker}/content` }),
  'files.delete': (marker) => ({ method: 'DELETE', path: `/v1/files/file-${marker}` }),
  // A batch names an input file and a batch by id; ones nobody made here are the 404 another tenant's ids get.
  'batches.create': (marker) => ({ method: 'POST', path: '/v1/batches', body: { input_file_id: `file-${marker}`, endpoint: '/v1/chat/completions', completion_window: '24h' } }),
  'batches.list': () => ({ method: 'GET', path: '/v1/batches' }),
  'batches.retrieve': (marker) => ({ method: 'GET', path: `/v1/batches/batch_${marker}` }),
  'batches.cancel': (marker) => ({ method: 'POST', path: `/v1/batches/batch_${marker}/cancel` }),
  'uploads.create': () => ({ method: 'POST', path: '/v1/uploads', body: { bytes: 4, filename: 'a.txt', mime_type: 'text/plain', purpose: 'user_data' } }),
  // An upload's routes name an id; one nobody made here is the 404 another tenant's id gets.
  'uploads.parts': (marker) => ({ method: 'POST', path: `/v1/uploads/upload_${marker}/parts`, body: partForm(marker) }),
  'uploads.complete': (marker) => ({ method: 'POST', path: `/v1/uploads/upload_${marker}/complete`, body: { part_ids: ['part_x'] } }),
  'uploads.cancel': (marker) => ({ method: 'POST', path: `/v1/uploads/upload_${marker}/cancel` }),
  not_found: () => ({ method: 'GET', path: '/v1/no-such-api' }),
}

/** One part of an upload (POST /v1/uploads/{id}/parts). */
function partForm(marker: string): FormData {
  const form = new FormData()
  form.append('data', new File([`part:${marker}`], 'blob'))
  return form
}

/** A file upload (POST /v1/files). */
function fileForm(marker: string): FormData {
  const form = new FormData()
  form.append('purpose', 'user_data')
  form.append('file', new File([`secret:${marker}`], 'probe.txt', { type: 'text/plain' }))
  return form
}

/** Routes anyone may call, and what they may tell: nothing about tenants, keys, counts or the backend. */
const PUBLIC = new Set([
  'GET /health',
  'GET /ready',
  'GET /openapi',
  'GET /openapi/json',
  'GET /dashboard',
  'GET /dashboard/assets/:name',
  'GET /',
  'HEAD /',
  'TRACE /*',
  'TRACE /v1/*',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/mcp',
  'GET /.well-known/oauth-protected-resource/mcp/:server',
  // A browser connecting a caller's account at an upstream MCP server: authorised by the sealed ticket or state it
  // carries (src/mcp/oauth/authorization.ts), never by a key; without a valid one it is a 400 page that names nothing.
  'GET /mcp/oauth/authorize',
  'GET /mcp/oauth/callback',
  // Dashboard sign-in through the identity provider (src/sso): the way there and back, authorised by the signed
  // state cookie and the provider's code, never by a key. The session and sign-out routes need the session cookie.
  'GET /auth/oidc/login',
  'GET /auth/oidc/callback',
])

/** The dashboard's SSO session (src/sso): only with its cookie, so 401 to everyone else. */
const SSO_SESSION = new Set(['GET /auth/oidc/session', 'POST /auth/oidc/logout'])

/** Credential checks that answer before any admin permission: sign-in and the metrics scrape. */
const ADMIN_LIKE = new Set(['POST /admin/session', 'GET /metrics'])

const routeName = (r: { method: string; path: string }) => `${r.method} ${r.path}`
const registered = () => createHttpApp(t.gw.gateway).routes.map(routeName)

function v1RouteOf(row: (typeof ENDPOINTS)[number]): string {
  return `${row.method} ${row.path}`
}

/** A request to a non-/v1 route that changes nothing when it is allowed. */
function probeOf(name: string): Probe {
  const [method, pattern] = name.split(' ') as [string, string]
  const path = pattern.replace(':id', 'no-such-id').replace(':server', 'tools').replace('*', 'no-such-thing')
  const query = path === '/admin/audit/detail' || path === '/admin/audit/conversation' ? '?log_id=no-such-entry' : ''
  return { method, path: `${path}${query}`, body: method === 'GET' || method === 'DELETE' || method === 'HEAD' ? undefined : {} }
}

async function send(probe: Probe, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${t.gw.url}${probe.path}`, {
    method: probe.method,
    headers: { ...(probe.body === undefined || probe.body instanceof FormData ? {} : { 'content-type': 'application/json' }), ...headers },
    body: probe.body === undefined ? undefined : probe.body instanceof FormData ? probe.body : JSON.stringify(probe.body),
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body }
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

async function createKey(fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await send({ method: 'POST', path: '/admin/keys', body: fields }, bearer(t.master))
  if (res.status !== 201) throw new Error(`creating ${JSON.stringify(fields)}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

interface Tenant {
  path: string
  api: { id: string; key: string }
  auditor: { id: string; key: string }
}
let alice: Tenant
let bob: Tenant
const WRONG_KEY = 'sk-gw-this-is-not-a-key-of-this-gateway-000000000000'

beforeAll(async () => {
  const tenant = async (name: string, path: string): Promise<Tenant> => ({
    path,
    api: await createKey({ name: `${name} app`, user_path: path }),
    auditor: await createKey({ name: `${name} auditor`, user_path: path, role: 'auditor' }),
  })
  alice = await tenant('alice', '/acme/team-a')
  bob = await tenant('bob', '/globex')
})

const upstreamRequests = () => t.openaiMock.requests.length + t.anthropicMock.requests.length + mcpUpstream.requests.length
const flushed = () => t.gw.gateway.auditLog.writer.flush()

describe('every route is classified', () => {
  test('each registered route is public, a /v1 row, an /admin route or an /mcp route; each /v1 row has its probe here', () => {
    const v1 = new Set(ENDPOINTS.map(v1RouteOf))
    const unclassified = registered().filter(
      (name) => !PUBLIC.has(name) && !v1.has(name) && !name.includes(' /admin') && !ADMIN_LIKE.has(name) && !/ \/mcp(\/|$)/.test(name) && !SSO_SESSION.has(name),
    )
    expect(unclassified).toEqual([])
    expect(Object.keys(V1_PROBES).sort()).toEqual(ENDPOINTS.map((e) => e.id).sort())
  })
})

describe('one tenant against another on /v1', () => {
  test("no /v1 answer of one tenant is another's cache hit", async () => {
    const hits: string[] = []
    for (const row of ENDPOINTS) {
      const probe = V1_PROBES[row.id](`cache-${row.id}`)
      const first = await send(probe, bearer(alice.api.key))
      const again = await send(probe, bearer(alice.api.key))
      const other = await send(probe, bearer(bob.api.key))
      if (other.headers.get('x-cache') === 'HIT') hits.push(`${row.id}: bob hit alice's answer (${first.status}, ${again.headers.get('x-cache')})`)
    }
    expect(hits).toEqual([])
    // The cache is on: alice's own repeat of a chat request is a hit, so the check above can fail.
    const probe = V1_PROBES['chat.completions']('cache-own')
    await send(probe, bearer(alice.api.key))
    expect((await send(probe, bearer(alice.api.key))).headers.get('x-cache')).toBe('HIT')
  })

  test('a Responses thread of one tenant cannot be continued by another, and nothing goes upstream', async () => {
    const first = await send(V1_PROBES.responses('thread-secret'), bearer(alice.api.key))
    expect(first.status).toBe(200)
    const before = upstreamRequests()
    const stolen = await send(
      { method: 'POST', path: '/v1/responses', body: { model: 'openai/gpt-4o-mini', input: 'echo:what did alice say?', previous_response_id: first.body.id } },
      bearer(bob.api.key),
    )
    expect(stolen.status).toBe(404)
    // Nor read, listed, cancelled or deleted by another: the 404 of an id never made, and nothing goes upstream.
    const lifecycle = ['responses.retrieve', 'responses.input_items', 'responses.cancel', 'responses.delete'] as const
    const unknown = await send(V1_PROBES['responses.retrieve']('never_made'), bearer(bob.api.key))
    for (const row of lifecycle) {
      const probe = { ...V1_PROBES[row]('x'), path: V1_PROBES[row]('x').path.replace('resp_x', first.body.id) }
      const bobs = await send(probe, bearer(bob.api.key))
      expect({ row, status: bobs.status, error: { ...bobs.body.error, message: undefined } }).toEqual({ row, status: 404, error: { ...unknown.body.error, message: undefined } })
    }
    expect(upstreamRequests()).toBe(before)
    // Alice reads her own: the provider that made it is asked.
    const mine = await send({ method: 'GET', path: `/v1/responses/${first.body.id}` }, bearer(alice.api.key))
    expect(mine.status).toBe(200)
    expect(mine.body.id).toBe(first.body.id)
    expect(upstreamRequests()).toBe(before + 1)
    const own = await send(
      { method: 'POST', path: '/v1/responses', body: { model: 'openai/gpt-4o-mini', input: 'echo:again', previous_response_id: first.body.id } },
      bearer(alice.api.key),
    )
    expect(own.status).toBe(200)
  })

  test("a tenant's file is a 404 to another on every file route, and missing from their list", async () => {
    const made = await send(V1_PROBES['files.create']('file-secret'), bearer(alice.api.key))
    expect(made.status).toBe(200)
    const unknown = await send(V1_PROBES['files.retrieve']('never_made'), bearer(bob.api.key))
    expect(unknown.status).toBe(404)
    for (const row of ['files.retrieve', 'files.content', 'files.delete'] as const) {
      const probe = { ...V1_PROBES[row]('x'), path: V1_PROBES[row]('x').path.replace('file-x', made.body.id) }
      const bobs = await send(probe, bearer(bob.api.key))
      expect({ row, status: bobs.status, error: { ...bobs.body.error, message: undefined } }).toEqual({ row, status: 404, error: { ...unknown.body.error, message: undefined } })
    }
    expect((await send(V1_PROBES['files.list']('x'), bearer(bob.api.key))).body.data.map((f: { id: string }) => f.id)).not.toContain(made.body.id)
    // Nor another tenant's upload: its parts, completion and cancellation are the 404 of an id never made.
    const upload = await send(V1_PROBES['uploads.create']('x'), bearer(alice.api.key))
    expect(upload.status).toBe(200)
    const unknownUpload = await send(V1_PROBES['uploads.cancel']('never_made'), bearer(bob.api.key))
    expect(unknownUpload.status).toBe(404)
    for (const row of ['uploads.parts', 'uploads.complete', 'uploads.cancel'] as const) {
      const probe = { ...V1_PROBES[row]('x'), path: V1_PROBES[row]('x').path.replace('upload_x', upload.body.id) }
      const bobs = await send(probe, bearer(bob.api.key))
      expect({ row, status: bobs.status, error: { ...bobs.body.error, message: undefined } }).toEqual({
        row,
        status: 404,
        error: { ...unknownUpload.body.error, message: undefined },
      })
    }
    expect((await send({ method: 'POST', path: `/v1/uploads/${upload.body.id}/cancel` }, bearer(alice.api.key))).body.status).toBe('cancelled')
    // Alice's is still there, whole.
    const content = await send({ method: 'GET', path: `/v1/files/${made.body.id}/content` }, bearer(alice.api.key))
    expect({ status: content.status, body: content.body }).toEqual({ status: 200, body: 'secret:file-secret' })
    // On /admin/files, each tenant's auditor sees its own tenant's files only, and may not ask for the other's.
    const bobsFile = await send(V1_PROBES['files.create']('bobs'), bearer(bob.api.key))
    const alicesView = await send({ method: 'GET', path: '/admin/files?limit=100' }, bearer(alice.auditor.key))
    const seen = alicesView.body.data.map((f: { id: string }) => f.id)
    expect({ status: alicesView.status, alices: seen.includes(made.body.id), bobs: seen.includes(bobsFile.body.id) }).toEqual({ status: 200, alices: true, bobs: false })
    expect((await send({ method: 'GET', path: `/admin/files?user_path=${encodeURIComponent(bob.path)}` }, bearer(alice.auditor.key))).status).toBe(403)
  })

  test('failover never answers a tenant with a model its key may not use', async () => {
    const restricted = await createKey({ name: 'alice cheap only', user_path: alice.path, allowed_models: ['down/cheap'] })
    const before = t.openaiMock.requests.length
    const res = await send(
      { method: 'POST', path: '/v1/chat/completions', body: { model: 'down/cheap', messages: [{ role: 'user', content: 'echo:fail over?' }] } },
      bearer(restricted.key),
    )
    expect(res.status).toBe(503)
    expect(t.openaiMock.requests.length).toBe(before)
    // A key allowed both is answered by the fallback: the chain itself works.
    const both = await send(
      { method: 'POST', path: '/v1/chat/completions', body: { model: 'down/cheap', messages: [{ role: 'user', content: 'echo:fail over!' }] } },
      bearer(alice.api.key),
    )
    expect(both.status).toBe(200)
  })

  test('a tenant cannot claim another tenant’s user path', async () => {
    const res = await send(V1_PROBES['chat.completions']('path-claim'), { ...bearer(bob.api.key), 'x-gateway-user-path': alice.path })
    expect(res.status).toBe(403)
  })
})

describe("one tenant's auditor against another's records", () => {
  test('audit entries, bodies and usage of one tenant are invisible to the other; its own are visible', async () => {
    const marker = `audit-${crypto.randomUUID()}`
    const requestId = crypto.randomUUID()
    expect((await send(V1_PROBES['chat.completions'](marker), { ...bearer(alice.api.key), 'x-request-id': requestId })).status).toBe(200)
    await flushed()
    const own = await send({ method: 'GET', path: `/admin/audit/log?search=${requestId}` }, bearer(alice.auditor.key))
    expect(own.body.total).toBe(1)
    const entryId = own.body.entries[0].id
    expect(JSON.stringify((await send({ method: 'GET', path: `/admin/audit/detail?log_id=${entryId}` }, bearer(alice.auditor.key))).body)).toContain(marker)

    expect((await send({ method: 'GET', path: `/admin/audit/log?search=${requestId}` }, bearer(bob.auditor.key))).body.total).toBe(0)
    expect((await send({ method: 'GET', path: `/admin/audit/detail?log_id=${entryId}` }, bearer(bob.auditor.key))).status).toBe(404)
    expect((await send({ method: 'GET', path: `/admin/audit/conversation?log_id=${entryId}` }, bearer(bob.auditor.key))).status).toBe(404)
    const everything = await send({ method: 'GET', path: '/admin/audit/log?limit=100' }, bearer(bob.auditor.key))
    expect(everything.body.entries.every((e: { user_path: string }) => e.user_path.startsWith(bob.path))).toBe(true)

    await t.gw.gateway.usage.flush()
    const byKey = await send({ method: 'GET', path: '/admin/usage/breakdown?by=key&days=1' }, bearer(bob.auditor.key))
    expect(byKey.status).toBe(200)
    expect(JSON.stringify(byKey.body)).not.toContain(alice.api.id)
  })

  test('keys of one tenant are invisible to the other', async () => {
    const listed = await send({ method: 'GET', path: '/admin/keys?limit=100' }, bearer(bob.auditor.key))
    const ids = listed.body.keys.map((k: { id: string }) => k.id)
    expect(ids).toContain(bob.api.id)
    expect(ids).not.toContain(alice.api.id)
    expect((await send({ method: 'GET', path: `/admin/keys/${alice.api.id}` }, bearer(bob.auditor.key))).status).toBe(404)
  })
})

describe('one tenant against another on /mcp', () => {
  test("a session made by one tenant's key is refused to another's", async () => {
    const client = await connectMcp(t.gw.url, alice.api.key)
    const sessionId = client.transport.sessionId
    expect(sessionId).toBeTruthy()
    const before = mcpUpstream.calls.length
    const stolen = await rawMcpPost(
      `${t.gw.url}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'tools__lookup', arguments: { q: 'x' } } },
      { ...bearer(bob.api.key), 'mcp-session-id': sessionId! },
    )
    expect([401, 403, 404]).toContain(stolen.status)
    expect(mcpUpstream.calls.length).toBe(before)
    await client.close()
  })
})

// Last: its failed attempts throttle the test address.
describe('an attacker (no key, a wrong key)', () => {
  test('is refused 401 on every route that is not public, and nothing reaches an upstream', async () => {
    const before = upstreamRequests()
    const violations: string[] = []
    const v1 = new Map(ENDPOINTS.map((e) => [v1RouteOf(e), e.id]))
    for (const name of registered()) {
      if (PUBLIC.has(name)) continue
      const id = v1.get(name)
      const probe = id ? V1_PROBES[id]('attacker') : probeOf(name)
      for (const headers of [{}, bearer(WRONG_KEY), { 'x-api-key': WRONG_KEY }] as Record<string, string>[]) {
        const res = await send(probe, headers)
        if (res.status !== 401) violations.push(`${name} ${JSON.stringify(headers)}: ${res.status}`)
      }
    }
    expect(violations).toEqual([])
    expect(upstreamRequests()).toBe(before)
  }, 60_000)

  test('public routes tell nothing about the backend, keys or counts', async () => {
    const ready = await send({ method: 'GET', path: '/ready' })
    expect(Object.keys(ready.body).sort()).toEqual(['status'])
    const health = await send({ method: 'GET', path: '/health' })
    expect(health.body).toEqual({ status: 'ok' })
    const root = await send({ method: 'GET', path: '/' })
    expect(JSON.stringify(root.body)).not.toMatch(/sqlite|postgres|key|tenant|acme|globex/i)
    for (const path of ['/mcp/oauth/authorize?ticket=v1.forged', '/mcp/oauth/callback?code=c&state=v1.forged', '/auth/oidc/callback?code=c&state=forged']) {
      const page = await send({ method: 'GET', path })
      expect(page.status).toBe(400)
      expect(JSON.stringify(page.body)).not.toMatch(/sqlite|postgres|tenant|acme|globex/i)
    }
  })
})
