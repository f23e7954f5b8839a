/**
 * Identity tokens on /v1 and /mcp (issue 31, item 3), through real HTTP: a real OpenID provider (oidc-provider,
 * client-credentials JWT access tokens, a key rotation by restarting it with a new key) and issuers of the test's
 * own (test/helpers/token-issuer.ts) for the tokens no provider mints (expired, tampered, unsigned, HS256 with the
 * public key); all serve a real OpenID configuration and JWKS; the gateway discovers them, verifies
 * tokens against the published keys, follows a key rotation with one refetch, and maps claims to a principal whose
 * user path, model restrictions, rate limits and audit entries work as for a managed key. Every refusal is the
 * generic 401 (the precise reason in the audit entry) and counts against the credential throttle.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { base64url, exportSPKI, importJWK, SignJWT } from 'jose'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { startTokenIssuer, type TokenIssuer } from '../helpers/token-issuer.ts'
import { startWorkloadProvider, type WorkloadProvider } from '../helpers/oidc-provider.ts'

const MASTER = 'master-key-jwt-auth-0123456789abcdef0123'
const AUDIENCE = 'ai-gateway'

let mock: MockUpstream
let ci: TokenIssuer // YAML: RS256, user path from a template of claims
let mesh: TokenIssuer // YAML: EdDSA only, user path from a claim, one model allowed
let envIssuer: TokenIssuer // GATEWAY_JWT_ISSUER / GATEWAY_JWT_AUDIENCE, ES256
let stranger: TokenIssuer // not configured
let workload: WorkloadProvider // oidc-provider: client-credentials access tokens
let gw: RunningGateway
let audit: AuditAdmin

beforeAll(async () => {
  mock = startMockOpenAI()
  ;[ci, mesh, envIssuer, stranger] = await Promise.all([startTokenIssuer('RS256'), startTokenIssuer('EdDSA'), startTokenIssuer('ES256'), startTokenIssuer('RS256')])
  workload = await startWorkloadProvider(AUDIENCE)
  const yaml = `
auth:
  jwt:
    refetch_cooldown_seconds: 1
    issuers:
      - issuer: ${ci.issuer}
        audience: ${AUDIENCE}
        user_path: /ci/{repository_owner}
      - issuer: ${mesh.issuer}
        audience: [other-service, ${AUDIENCE}]
        algorithms: [EdDSA]
        user_path_claim: team_path
        allowed_models: [openai/gpt-4o-mini]
      - issuer: ${workload.issuer}
        audience: ${AUDIENCE}
        user_path: /ci/{client_id}
workflows:
  - name: default
    features: { budget: true, usage: true }
rate_limits:
  - { scope: { user_path: /ci/limited }, requests_per_minute: 2 }
`
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: mock.url,
    GATEWAY_CONFIG: writeGatewayYaml(yaml),
    GATEWAY_JWT_ISSUER: envIssuer.issuer,
    GATEWAY_JWT_AUDIENCE: `${AUDIENCE}, spare`,
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '10',
    // The refusals below all come from this address; the throttle itself is tested on a gateway of its own.
    GATEWAY_AUTH_FAILURE_BURST: '1000',
  })
  audit = auditAdmin(gw.url, MASTER)
}, 30_000)
afterAll(async () => {
  await gw?.stop()
  mock?.stop()
  for (const issuer of [ci, mesh, envIssuer, stranger]) issuer?.stop()
  await workload?.stop()
})

const chat = (token: string, model = 'openai/gpt-4o-mini', requestId = crypto.randomUUID()) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  })

const ciClaims = (extra: Record<string, unknown> = {}) => ({ sub: 'repo:acme/app:ref:refs/heads/main', aud: AUDIENCE, repository_owner: 'acme', ...extra })

/** Refused with the generic 401, and the audit entry tells why (the client never learns it). */
async function expectRefused(token: string, reason: RegExp) {
  const requestId = crypto.randomUUID()
  const res = await chat(token, 'openai/gpt-4o-mini', requestId)
  expect(res.status).toBe(401)
  const body = (await res.json()) as { error: { code: string; type: string } }
  expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
  const entry = await audit.entryFor(requestId)
  expect(entry.status_code).toBe(401)
  expect(String((entry.data as { error_message?: string }).error_message)).toMatch(reason)
  expect(entry.principal_id || null).toBeNull()
}

describe('a token from a configured issuer', () => {
  test('is a principal jwt:<iss>#<sub> with the user path of its claims, audited as auth_method jwt', async () => {
    const requestId = crypto.randomUUID()
    const res = await chat(await ci.sign(ciClaims()), 'openai/gpt-4o-mini', requestId)
    expect(res.status).toBe(200)
    const entry = await audit.entryFor(requestId)
    expect(entry).toMatchObject({ principal_id: `jwt:${ci.issuer}#repo:acme/app:ref:refs/heads/main`, auth_method: 'jwt', user_path: '/ci/acme', status_code: 200 })
    expect(entry.auth_key_id || null).toBeNull()
  })

  test('the token may narrow its user path with X-Gateway-User-Path, never widen it', async () => {
    const token = await ci.sign(ciClaims())
    const narrowed = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-gateway-user-path': '/ci/acme/nightly' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(narrowed.status).toBe(200)
    const widened = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-gateway-user-path': '/ci/globex' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(widened.status).toBe(403)
    expect(((await widened.json()) as { error: { code: string } }).error.code).toBe('user_path_not_allowed')
  })

  test('rate limits of its user path apply to it', async () => {
    const token = await ci.sign(ciClaims({ repository_owner: 'limited' }))
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await chat(token)).status)
    expect(statuses).toEqual([200, 200, 429])
  })

  test('a token whose user path cannot be made from its claims is refused', async () => {
    await expectRefused(await ci.sign({ sub: 'no-owner', aud: AUDIENCE }), /no 'repository_owner' claim/)
    await expectRefused(await ci.sign(ciClaims({ repository_owner: '..' })), /user path is not valid/)
  })

  test('a second issuer (EdDSA) with a path claim and a model restriction; the audience may be any configured one', async () => {
    const token = await mesh.sign({ sub: 'spiffe://mesh/ns/search/sa/indexer', aud: ['unrelated', AUDIENCE], team_path: '/search/indexer' })
    const requestId = crypto.randomUUID()
    expect((await chat(token, 'openai/gpt-4o-mini', requestId)).status).toBe(200)
    expect(await audit.entryFor(requestId)).toMatchObject({ principal_id: `jwt:${mesh.issuer}#spiffe://mesh/ns/search/sa/indexer`, user_path: '/search/indexer' })
    const other = await chat(token, 'openai/gpt-4o')
    expect(other.status).toBe(403)
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed')
  })

  test('the issuer from GATEWAY_JWT_ISSUER and GATEWAY_JWT_AUDIENCE (ES256, comma-separated audiences)', async () => {
    expect((await chat(await envIssuer.sign({ sub: 'workload-1', aud: 'spare' }))).status).toBe(200)
  })

  test('a token within the clock leeway (30 s) is accepted', async () => {
    expect((await chat(await ci.sign(ciClaims({ exp: Math.floor(Date.now() / 1000) - 5 })))).status).toBe(200)
  })
})

describe('a real OpenID provider (oidc-provider) as the issuer', () => {
  test('its client-credentials access token is accepted on /v1 and /mcp; after it rotates its key, new tokens work and old ones do not', async () => {
    const first = await workload.token()
    const requestId = crypto.randomUUID()
    expect((await chat(first, 'openai/gpt-4o-mini', requestId)).status).toBe(200)
    expect(await audit.entryFor(requestId)).toMatchObject({ principal_id: `jwt:${workload.issuer}#ci-runner`, auth_method: 'jwt', user_path: '/ci/ci-runner' })
    const mcp = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ci', version: '1' } } }),
    })
    expect(mcp.status).toBe(200)

    const oldKid = workload.kid
    await workload.rotate()
    expect(workload.kid).not.toBe(oldKid)
    await Bun.sleep(1100) // the refetch cooldown (1 s here)
    expect((await chat(await workload.token())).status).toBe(200)
    expect((await chat(first)).status).toBe(401)
  }, 20_000)
})

describe('refused tokens', () => {
  test('expired beyond the leeway', async () => {
    await expectRefused(await ci.sign(ciClaims({ exp: Math.floor(Date.now() / 1000) - 120 })), /expired/)
  })

  test('for another audience', async () => {
    await expectRefused(await ci.sign(ciClaims({ aud: 'someone-else' })), /aud/)
  })

  test('from an issuer that is not configured', async () => {
    await expectRefused(await stranger.sign(ciClaims()), /not a configured issuer/)
  })

  test('naming a configured issuer but signed by another issuer with the configured kid', async () => {
    await expectRefused(await stranger.sign(ciClaims(), { iss: ci.issuer, kid: ci.kid }), /signature verification failed/)
  })

  test('with a tampered payload or signature', async () => {
    const token = await ci.sign(ciClaims())
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)))
    const forged = base64url.encode(JSON.stringify({ ...claims, repository_owner: 'globex' }))
    await expectRefused(`${header}.${forged}.${signature}`, /signature verification failed/)
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11)
    await expectRefused(`${header}.${payload}.${flipped}`, /signature verification failed/)
  })

  test('unsigned (alg none)', async () => {
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value))
    const now = Math.floor(Date.now() / 1000)
    const unsigned = `${encode({ alg: 'none', typ: 'JWT', kid: ci.kid })}.${encode({ ...ciClaims(), iss: ci.issuer, iat: now, exp: now + 300 })}.`
    await expectRefused(unsigned, /alg/)
  })

  test('HS256 keyed with the issuer’s public key', async () => {
    const publicPem = await exportSPKI((await importJWK(ci.publicJwk, 'RS256')) as CryptoKey)
    const token = await new SignJWT({ ...ciClaims(), iss: ci.issuer })
      .setProtectedHeader({ alg: 'HS256', kid: ci.kid })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicPem))
    await expectRefused(token, /alg/)
  })

  test('an algorithm outside the issuer’s list (the EdDSA-only issuer)', async () => {
    const other = await startTokenIssuer('RS256')
    try {
      // Signed with a key the mesh issuer does not publish either; the algorithm is refused first.
      await expectRefused(await other.sign({ sub: 'x', aud: AUDIENCE, team_path: '/search' }, { iss: mesh.issuer, kid: mesh.kid }), /alg/)
    } finally {
      other.stop()
    }
  })
})

describe('key rotation', () => {
  test('a new kid is fetched once; a flood of unknown kids costs at most one more fetch; the retired key stops working', async () => {
    const before = await ci.sign(ciClaims())
    expect((await chat(before)).status).toBe(200)
    const fetchesBefore = ci.jwksFetches
    await ci.rotate()
    // The cooldown (1 s here) since the last fetch must pass before an unknown kid may refetch.
    await Bun.sleep(1100)
    expect((await chat(await ci.sign(ciClaims()))).status).toBe(200)
    expect(ci.jwksFetches).toBe(fetchesBefore + 1)
    // Tokens of the same key need no fetch.
    for (let i = 0; i < 5; i++) expect((await chat(await ci.sign(ciClaims()))).status).toBe(200)
    expect(ci.jwksFetches).toBe(fetchesBefore + 1)

    const floodStart = ci.jwksFetches
    const flood = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await chat(await ci.sign(ciClaims(), { kid: `made-up-${i}` }))).status))
    expect(flood.every((s) => s === 401)).toBe(true)
    expect(ci.jwksFetches - floodStart).toBeLessThanOrEqual(1)

    // The key taken out of the set no longer verifies.
    expect((await chat(before)).status).toBe(401)
  }, 20_000)
})

describe('/mcp', () => {
  const initialize = (token: string, requestId: string) =>
    fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': requestId },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'jwt-test', version: '1' } },
      }),
    })

  test('a valid token initializes a session as its principal; an expired one is a 401 with the bearer challenge', async () => {
    const requestId = crypto.randomUUID()
    const ok = await initialize(await ci.sign(ciClaims()), requestId)
    expect(ok.status).toBe(200)
    expect(await audit.entryFor(requestId)).toMatchObject({ principal_id: `jwt:${ci.issuer}#repo:acme/app:ref:refs/heads/main`, auth_method: 'jwt' })

    const refused = await initialize(await ci.sign(ciClaims({ exp: Math.floor(Date.now() / 1000) - 120 })), crypto.randomUUID())
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('Bearer')
  })
})

describe('the credential throttle', () => {
  test('failed tokens count against the address; while throttled even a valid token is not checked', async () => {
    const issuer = await startTokenIssuer('RS256')
    const guarded = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-openai-test',
      OPENAI_BASE_URL: mock.url,
      GATEWAY_JWT_ISSUER: issuer.issuer,
      GATEWAY_JWT_AUDIENCE: AUDIENCE,
      GATEWAY_AUTH_FAILURE_BURST: '3',
      GATEWAY_AUTH_FAILURE_REFILL_PER_SECOND: '0.01',
    })
    try {
      const call = (token: string) =>
        fetch(`${guarded.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        })
      for (let i = 0; i < 3; i++) expect((await call(await issuer.sign({ sub: `s${i}`, aud: 'wrong' }))).status).toBe(401)
      const fetches = issuer.jwksFetches
      const throttled = await call(await issuer.sign({ sub: 'good', aud: AUDIENCE }, { kid: 'never-seen' }))
      expect(throttled.status).toBe(401)
      expect(((await throttled.json()) as { error: { code: string } }).error.code).toBe('auth_throttled')
      expect(throttled.headers.get('retry-after')).not.toBeNull()
      // Not checked: the unknown kid did not make the gateway fetch the key set.
      expect(issuer.jwksFetches).toBe(fetches)
    } finally {
      await guarded.stop()
      issuer.stop()
    }
  })
})

describe('an issuer that cannot be reached', () => {
  test('its tokens get 503 key_store_unavailable with the reason in the audit entry, and nothing counts against the caller', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const unreachable = `http://127.0.0.1:${closed.port}`
    closed.stop(true)
    const down = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-openai-test',
      OPENAI_BASE_URL: mock.url,
      GATEWAY_JWT_ISSUER: unreachable,
      GATEWAY_JWT_AUDIENCE: AUDIENCE,
      GATEWAY_AUTH_FAILURE_BURST: '1',
      LOGGING_AUDIT_FLUSH_INTERVAL_MS: '10',
    })
    try {
      const token = await stranger.sign({ sub: 'w', aud: AUDIENCE }, { iss: unreachable })
      for (let i = 0; i < 3; i++) {
        const requestId = crypto.randomUUID()
        const res = await fetch(`${down.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': requestId },
          body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        })
        // Never auth_throttled (burst 1): an issuer outage is not the caller's failure.
        expect(res.status).toBe(503)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('key_store_unavailable')
        const entry = await auditAdmin(down.url, MASTER).entryFor(requestId)
        expect(String((entry.data as { error_message?: string }).error_message)).toContain(`the issuer ${unreachable} cannot be discovered`)
      }
    } finally {
      await down.stop()
    }
  })
})
