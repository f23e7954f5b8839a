/**
 * /admin/mcp: servers added, replaced and removed at run time (stored sealed; their secrets never shown), the
 * tools of a server with the rules that name each, visibility rules added and removed, every change a security
 * event. Roles and scopes of these routes are in test/e2e/admin-roles.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'

const MASTER = 'mcp-admin-master-key-0123456789abcdef'
const SECRET = 'Bearer upstream-secret-value-77'

let gw: RunningGateway
let configured: MockMcpServer
let added: MockMcpServer
let user: { key: string; id: string }

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

async function toolsOf(key: string): Promise<string[]> {
  const mcp = await connectMcp(gw.url, key)
  const names = (await mcp.client.listTools()).tools.map((t) => t.name).sort()
  await mcp.close()
  return names
}

async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`not met: ${JSON.stringify(value).slice(0, 300)}`)
    await Bun.sleep(50)
  }
}

beforeAll(async () => {
  configured = await startMockMcpServer({ tools: [{ name: 'one' }] })
  added = await startMockMcpServer({ tools: [{ name: 'alpha' }, { name: 'beta' }] })
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    fixed: { url: "${configured.url}" }
  visibility:
    - user_path: /ops
      deny: ["fixed/*"]
`),
  })
  await gw.gateway.mcp.catalog.settled()
  user = (await admin('POST', '/keys', { name: 'u', user_path: '/team/u' })).body
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  await Promise.all([configured?.stop(), added?.stop()])
})

describe('servers', () => {
  test('added at run time: connected at once, stored sealed, its secret never shown', async () => {
    const res = await admin('POST', '/mcp/servers', { name: 'extra', url: added.url, headers: { Authorization: SECRET }, description: 'added in a test' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: 'extra', source: 'admin', kind: 'http', header_names: ['Authorization'] })
    await eventually(
      () => toolsOf(user.key),
      (names) => names.includes('extra__alpha'),
    )
    expect(added.requests.at(-1)?.headers.authorization).toBe(SECRET)
    const list = await admin('GET', '/mcp/servers')
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(['extra', 'fixed'])
    expect(JSON.stringify(list.body)).not.toContain('upstream-secret-value')
    const db = new Database(gw.gateway.config.database.path, { readonly: true })
    const row = db.query('SELECT sealed_config FROM mcp_servers WHERE name = ?').get('extra') as { sealed_config: string }
    db.close()
    expect(row.sealed_config).not.toContain('upstream-secret-value')
    expect(row.sealed_config).not.toContain(added.url)
  })

  test('a configured name is taken; a bad definition is a 400 naming the field', async () => {
    expect((await admin('POST', '/mcp/servers', { name: 'fixed', url: added.url })).body.error.code).toBe('mcp_server_configured')
    expect((await admin('DELETE', '/mcp/servers/fixed')).status).toBe(409)
    const bad = await admin('POST', '/mcp/servers', { name: 'Bad_Name', url: added.url })
    expect(bad.status).toBe(400)
    expect(bad.body.error.param).toBe('name')
    const noUrl = await admin('POST', '/mcp/servers', { name: 'nourl', headers: {} })
    expect(noUrl.status).toBe(400)
    expect(noUrl.body.error.code).toBe('invalid_mcp_server')
    expect((await admin('POST', '/mcp/servers', { name: 'extra', url: added.url })).status).toBe(409)
  })

  test('one server: its tools and the rules that name each', async () => {
    const res = await admin('GET', '/mcp/servers/fixed')
    expect(res.status).toBe(200)
    expect(res.body.status.state).toBe('ready')
    const one = res.body.tools.find((t: { name: string }) => t.name === 'one')
    expect(one.default).toBe('visible')
    expect(one.rules).toEqual([{ effect: 'deny', id: null, rule: { user_path: '/ops', allow: [], deny: ['fixed/*'] } }])
    expect((await admin('GET', '/mcp/servers/nope')).status).toBe(404)
  })

  test('replaced and removed; each change a security event', async () => {
    const replaced = await admin('PUT', '/mcp/servers/extra', { url: added.url, default_tool_visibility: 'hidden' })
    expect(replaced.status).toBe(200)
    expect(replaced.body.default_tool_visibility).toBe('hidden')
    await eventually(
      () => toolsOf(user.key),
      (names) => !names.includes('extra__alpha'),
    )
    expect((await admin('DELETE', '/mcp/servers/extra')).status).toBe(200)
    expect((await admin('GET', '/mcp/servers/extra')).status).toBe(404)
    await gw.gateway.auditLog.writer.flush()
    const events = (await admin('GET', '/audit/log?path=/admin/mcp/servers/extra')).body.entries.map((e: { data: { event_type: string } }) => e.data.event_type)
    expect(events).toContain('mcp_server.replaced')
    expect(events).toContain('mcp_server.deleted')
  })
})

describe('visibility rules', () => {
  test('added and removed through the API, applied to the next request', async () => {
    expect(await toolsOf(user.key)).toContain('fixed__one')
    const rule = await admin('POST', '/mcp/visibility', { name: 'no fixed for u', key_id: user.id, deny: ['fixed/one'] })
    expect(rule.status).toBe(201)
    expect(await toolsOf(user.key)).not.toContain('fixed__one')
    const rules = (await admin('GET', '/mcp/visibility')).body.data
    expect(rules.map((r: { source: string }) => r.source)).toEqual(['config', 'admin'])
    expect((await admin('POST', '/mcp/visibility', { key_id: user.id })).status).toBe(400)
    expect((await admin('POST', '/mcp/visibility', { deny: ['not a pattern'] })).status).toBe(400)
    expect((await admin('DELETE', `/mcp/visibility/${rule.body.id}`)).status).toBe(200)
    expect(await toolsOf(user.key)).toContain('fixed__one')
    expect((await admin('DELETE', `/mcp/visibility/${rule.body.id}`)).status).toBe(404)
  })
})
