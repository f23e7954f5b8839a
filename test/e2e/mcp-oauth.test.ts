/**
 * Per-user upstream credentials: the gateway as the OAuth 2.1 client of an MCP server that wants each user's own
 * token (authorization code with PKCE, dynamic client registration, refresh), against a test server of our own
 * with its authorization server. Tokens are kept per key and sealed at rest, never cross between callers, are
 * refreshed, and are revoked through the admin API.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { join } from 'node:path'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp, toolText } from '../helpers/mcp-client.ts'
import { startMockOAuthMcpServer, type MockOAuthMcpServer } from '../helpers/mock-oauth-mcp-server.ts'

const MASTER = 'mcp-oauth-master-key-0123456789abcdef'

let gw: RunningGateway
let upstream: MockOAuthMcpServer
let alice: { key: string; id: string }
let bob: { key: string; id: string }
let dbPath: string

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: Error & { code?: number; data?: any }) => e,
  )

/** A browser that follows the link to the end (the test authorization server approves at once). */
async function browse(link: string): Promise<{ status: number; text: string; hops: string[] }> {
  const hops: string[] = []
  let url = link
  for (let i = 0; i < 10; i++) {
    hops.push(url)
    const res = await fetch(url, { redirect: 'manual' })
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href
      continue
    }
    return { status: res.status, text: await res.text(), hops }
  }
  throw new Error('too many redirects')
}

async function connectAccount(key: string, as: string): Promise<void> {
  upstream.approveAs = as
  const mcp = await connectMcp(gw.url, key)
  const text = toolText(await mcp.client.callTool({ name: 'acme__connect_account', arguments: {} }))
  await mcp.close()
  const link = /(http:\/\/\S+)/.exec(text)![1]!
  const page = await browse(link)
  expect(page.status).toBe(200)
  expect(page.text).toContain('Connected to acme')
}

beforeAll(async () => {
  upstream = await startMockOAuthMcpServer()
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    acme:
      url: ${upstream.url}
      oauth: { per: key }
`),
  })
  dbPath = gw.gateway.config.database.path
  const create = async (name: string, userPath: string) => (await admin('POST', '/keys', { name, user_path: userPath })).body as { key: string; id: string }
  alice = await create('alice', '/acme-co/alice')
  bob = await create('bob', '/acme-co/bob')
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  await upstream?.stop()
})

describe('connecting an account', () => {
  test('before anyone connects, the server offers its connect tool; a call answers a link', async () => {
    const mcp = await connectMcp(gw.url, alice.key)
    const names = (await mcp.client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual(['acme__connect_account'])
    const text = toolText(await mcp.client.callTool({ name: 'acme__connect_account', arguments: {} }))
    expect(text).toContain(`${gw.url}/mcp/oauth/authorize?ticket=`)
    await mcp.close()
  })

  test('the link: PKCE, dynamic registration, the resource indicator; the tokens are stored for that key only', async () => {
    await connectAccount(alice.key, 'alice')
    expect(upstream.registrations).toBe(1)
    expect(upstream.issued.at(-1)).toMatchObject({ user: 'alice', resource: `${upstream.origin}/mcp` })
    const mcp = await connectMcp(gw.url, alice.key)
    const names = await (async () => {
      for (let i = 0; i < 100; i++) {
        const tools = (await mcp.client.listTools()).tools.map((t) => t.name)
        if (tools.includes('acme__whoami')) return tools
        await Bun.sleep(50)
      }
      throw new Error('the server’s tools never appeared')
    })()
    expect(names.sort()).toEqual(['acme__connect_account', 'acme__whoami'])
    expect(toolText(await mcp.client.callTool({ name: 'acme__whoami', arguments: {} }))).toBe('alice')
    await mcp.close()
    // The upstream saw alice's token, never the gateway key.
    const seen = upstream.mcp.requests.filter((r) => r.method === 'POST').map((r) => r.headers.authorization ?? '')
    expect(seen.some((h) => h.startsWith('Bearer at-alice-'))).toBe(true)
    expect(seen.some((h) => h.includes(alice.key))).toBe(false)
    // The call went on the direct path (string ids; src/mcp/upstream/http-caller.ts) with alice's token.
    const call = upstream.mcp.requests.filter((r) => (r.body as { method?: string } | undefined)?.method === 'tools/call').at(-1)!
    expect((call.body as { id: unknown }).id).toStartWith('g')
    expect(call.headers.authorization).toStartWith('Bearer at-alice-')
  })

  test('another key never uses it: bob is asked to connect his own account', async () => {
    const mcp = await connectMcp(gw.url, bob.key)
    const refused = await failure(mcp.client.callTool({ name: 'acme__whoami', arguments: {} }))
    expect(refused.data).toMatchObject({ code: 'mcp_authorization_required', status_code: 401, server: 'acme' })
    expect(refused.data.connect_url).toContain('/mcp/oauth/authorize?ticket=')
    await mcp.close()
    await connectAccount(bob.key, 'bob')
    const again = await connectMcp(gw.url, bob.key)
    expect(toolText(await again.client.callTool({ name: 'acme__whoami', arguments: {} }))).toBe('bob')
    await again.close()
  })

  test('a client that takes URL elicitations gets -32042 with the link', async () => {
    const k = (await admin('POST', '/keys', { name: 'carol', user_path: '/acme-co/carol' })).body as { key: string }
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k.key}` } } })
    const client = new Client({ name: 'elicit', version: '1' }, { capabilities: { elicitation: { url: {} } } })
    await client.connect(transport)
    const refused = await failure(client.callTool({ name: 'acme__whoami', arguments: {} }))
    expect(refused.code).toBe(-32042)
    expect(refused.data.elicitations[0]).toMatchObject({ mode: 'url' })
    expect(refused.data.elicitations[0].url).toContain('/mcp/oauth/authorize?ticket=')
    await client.close()
  })

  test('a forged, altered or expired link is refused with a page saying so', async () => {
    expect((await browse(`${gw.url}/mcp/oauth/authorize?ticket=v1.AAAA`)).status).toBe(400)
    expect((await browse(`${gw.url}/mcp/oauth/callback?code=x&state=v1.AAAA`)).status).toBe(400)
  })
})

describe('at rest, refresh, revocation', () => {
  test('tokens are sealed in the database: no access or refresh token in plain text', () => {
    const db = new Database(dbPath, { readonly: true })
    const rows = db.query('SELECT owner_kind, sealed FROM mcp_credentials').all() as { owner_kind: string; sealed: string }[]
    db.close()
    expect(rows.filter((r) => r.owner_kind === 'key')).toHaveLength(2)
    const everything = JSON.stringify(rows)
    for (const issued of upstream.issued) {
      expect(everything).not.toContain(issued.token)
      expect(everything).not.toContain(issued.refresh)
    }
    expect(everything).not.toContain('client-')
  })

  test('an expired access token is refreshed (and the new one stored)', async () => {
    upstream.accessTokenSeconds = 1
    await connectAccount(alice.key, 'alice')
    await Bun.sleep(1200)
    const before = upstream.refreshes
    const mcp = await connectMcp(gw.url, alice.key)
    expect(toolText(await mcp.client.callTool({ name: 'acme__whoami', arguments: {} }))).toBe('alice')
    await mcp.close()
    expect(upstream.refreshes).toBeGreaterThan(before)
    upstream.accessTokenSeconds = 3600
  })

  test('revoked through the admin API: listed without secrets, then the next call asks to connect again', async () => {
    const listed = await admin('GET', '/mcp/credentials')
    expect(listed.status).toBe(200)
    const mine = listed.body.data.find((c: { owner_id: string }) => c.owner_id === alice.id)
    expect(mine).toMatchObject({ server: 'acme', owner_kind: 'key', user_path: '/acme-co/alice' })
    expect(JSON.stringify(listed.body)).not.toContain('at-alice')
    expect((await admin('DELETE', `/mcp/credentials/${mine.id}`)).status).toBe(200)
    const mcp = await connectMcp(gw.url, alice.key)
    const refused = await failure(mcp.client.callTool({ name: 'acme__whoami', arguments: {} }))
    expect(refused.data.code).toBe('mcp_authorization_required')
    await mcp.close()
    await gw.gateway.auditLog.writer.flush()
    const events = await admin('GET', `/audit/log?path=/admin/mcp/credentials/${mine.id}`)
    expect(events.body.entries.map((e: { data: { event_type?: string } }) => e.data.event_type)).toContain('mcp_credential.revoked')
  })
})

test('the database file is where the test thinks it is', () => {
  expect(dbPath.endsWith(join('gateway.db'))).toBe(true)
})
