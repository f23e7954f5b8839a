/**
 * The MCP gateway end to end: the official SDK client against /mcp and /mcp/{server}, with real MCP servers
 * upstream (server-everything over stdio, a test server of our own over Streamable HTTP), managed keys, the
 * audit log read back through /admin/audit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { everythingStdio } from '../helpers/everything-server.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp, rawMcpPost, toolText } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'

const MASTER = 'mcp-test-master-key-0123456789abcdef'
const UPSTREAM_SECRET = 'upstream-static-secret-42'

let gw: RunningGateway
let mock: MockMcpServer
let audit: AuditAdmin
let plainKey: string
let teamKey: { key: string; id: string }

async function createKey(body: Record<string, unknown>): Promise<{ key: string; id: string }> {
  const res = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(201)
  return (await res.json()) as { key: string; id: string }
}

beforeAll(async () => {
  mock = await startMockMcpServer({ tools: [{ name: 'alpha' }, { name: 'beta' }, { name: 'delete_all' }] })
  const { command, args } = everythingStdio()
  const yaml = writeGatewayYaml(`
mcp:
  health_interval_seconds: 1
  servers:
    everything:
      command: ${JSON.stringify(command)}
      args: ${JSON.stringify(args)}
      env: { EVERYTHING_NOTE: "from-config" }
    mock:
      url: ${mock.url}
      headers: { Authorization: "Bearer ${UPSTREAM_SECRET}" }
      forward_identity: true
  visibility:
    - user_path: /team-a
      deny: [mock/delete_*]
    - key_id: nobody
      allow: ["*"]
`)
  gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, GATEWAY_CONFIG: yaml })
  await gw.gateway.mcp.catalog.settled()
  audit = auditAdmin(gw.url, MASTER)
  plainKey = (await createKey({ name: 'plain' })).key
  teamKey = await createKey({ name: 'team-a', user_path: '/team-a/alice' })
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  await mock?.stop()
})

describe('aggregated endpoint /mcp', () => {
  test('lists every server’s tools under <server>__<tool> and calls them', async () => {
    const mcp = await connectMcp(gw.url, plainKey)
    const { tools } = await mcp.client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toContain('everything__echo')
    expect(names).toContain('mock__alpha')
    expect(names).toContain('mock__delete_all')
    const echo = await mcp.client.callTool({ name: 'everything__echo', arguments: { message: 'hello gateway' } })
    expect(toolText(echo)).toBe('Echo: hello gateway')
    const alpha = await mcp.client.callTool({ name: 'mock__alpha', arguments: { text: 'x' } })
    expect(toolText(alpha)).toBe('alpha: {"text":"x"}')
    await mcp.close()
  })

  test('a tools/call is an audit entry with its own method, path and MCP fields, filterable', async () => {
    const mcp = await connectMcp(gw.url, plainKey, '/mcp', { 'x-request-id': 'mcp-audit-probe-1' })
    await mcp.client.callTool({ name: 'everything__echo', arguments: { message: 'audited', password: 'hunter2' } })
    await mcp.close()
    const page = await audit.eventually(
      () => audit.list({ method: 'tools/call', provider: 'mcp', search: 'mcp-audit-probe-1' }),
      (p) => p.total === 1,
    )
    const entry = await audit.detail(page.entries[0]!.id)
    expect(entry.method).toBe('tools/call')
    expect(entry.path).toBe('/mcp')
    expect(entry.provider).toBe('mcp')
    expect(entry.provider_name).toBe('everything')
    expect(entry.requested_model).toBe('everything__echo')
    expect(entry.resolved_model).toBe('echo')
    expect(entry.status_code).toBe(200)
    expect(entry.data.mcp?.server).toBe('everything')
    expect(entry.data.mcp?.result_bytes).toBeGreaterThan(0)
    expect(entry.data.request_body).toEqual({ name: 'everything__echo', arguments: { message: 'audited', password: '[REDACTED]' } })
    expect(entry.session_id).toStartWith('mcp-')
  })

  test('the agent session and the model’s tool call id the client names in _meta link the entry to its model requests', async () => {
    const mcp = await connectMcp(gw.url, plainKey, '/mcp', { 'x-request-id': 'mcp-audit-probe-2' })
    await mcp.client.callTool({ name: 'everything__echo', arguments: { message: 'linked' }, _meta: { sessionId: 'agent-session-42', 'claudecode/toolUseId': 'toolu_0123' } })
    await mcp.close()
    const page = await audit.eventually(
      () => audit.list({ session_id: 'agent-session-42', method: 'tools/call' }),
      (p) => p.total === 1,
    )
    expect(page.entries[0]!.data.mcp?.tool_call_id).toBe('toolu_0123')
    // Arguments without a secret: stored from the text the redaction made, as they were sent.
    expect((await audit.detail(page.entries[0]!.id)).data.request_body).toEqual({ name: 'everything__echo', arguments: { message: 'linked' } })
  })

  test('a stdio server gets only its configured environment, never the gateway’s', async () => {
    const mcp = await connectMcp(gw.url, plainKey)
    const env = toolText(await mcp.client.callTool({ name: 'everything__get-env', arguments: {} }))
    await mcp.close()
    expect(env).toContain('EVERYTHING_NOTE')
    expect(env).not.toContain(MASTER)
    expect(env).not.toContain('GATEWAY_MASTER_KEY')
  })
})

describe('one server: /mcp/{server}', () => {
  test('names are the server’s own', async () => {
    const mcp = await connectMcp(gw.url, plainKey, '/mcp/everything')
    const { tools } = await mcp.client.listTools()
    expect(tools.map((t) => t.name)).toContain('echo')
    expect(tools.some((t) => t.name.includes('__'))).toBe(false)
    expect(toolText(await mcp.client.callTool({ name: 'echo', arguments: { message: 'one' } }))).toBe('Echo: one')
    await mcp.close()
  })

  test('an unknown server is a 404', async () => {
    const res = await rawMcpPost(
      `${gw.url}/mcp/nope`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization: `Bearer ${plainKey}` },
    )
    expect(res.status).toBe(404)
    expect(res.body.error.data.code).toBe('mcp_server_not_found')
  })
})

describe('authentication', () => {
  test('no key: 401 with the protected-resource metadata in WWW-Authenticate, and an audit entry', async () => {
    const res = await rawMcpPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-request-id': 'mcp-no-key-1' })
    expect(res.status).toBe(401)
    expect(res.body.error.data).toMatchObject({ type: 'authentication_error', status_code: 401 })
    const challenge = res.headers.get('www-authenticate') ?? ''
    expect(challenge).toContain(`resource_metadata="${gw.url}/.well-known/oauth-protected-resource/mcp"`)
    const metadata = (await (await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; bearer_methods_supported: string[] }
    expect(metadata.resource).toBe(`${gw.url}/mcp`)
    expect(metadata.bearer_methods_supported).toEqual(['header'])
    const entry = await audit.entryFor('mcp-no-key-1')
    expect(entry.status_code).toBe(401)
    expect(entry.path).toBe('/mcp')
  })

  test('a session is bound to its key: another key, a forged or a deleted session is refused', async () => {
    const alice = await connectMcp(gw.url, plainKey)
    const sessionId = alice.transport.sessionId!
    const asBob = await rawMcpPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: `Bearer ${teamKey.key}`, 'mcp-session-id': sessionId })
    expect(asBob.status).toBe(404)
    const forged = await rawMcpPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      { authorization: `Bearer ${plainKey}`, 'mcp-session-id': `${sessionId.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA` },
    )
    expect(forged.status).toBe(404)
    const none = await rawMcpPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { authorization: `Bearer ${plainKey}` })
    expect(none.status).toBe(400)
    await alice.transport.terminateSession()
    const after = await rawMcpPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, { authorization: `Bearer ${plainKey}`, 'mcp-session-id': sessionId })
    expect(after.status).toBe(404)
    await alice.close()
  })
})

describe('peer defects as regression tests', () => {
  test('token pass-through: the client’s key never reaches the upstream; the server’s own credential does', async () => {
    const before = mock.requests.length
    const mcp = await connectMcp(gw.url, plainKey)
    await mcp.client.callTool({ name: 'mock__alpha', arguments: {} })
    await mcp.close()
    const seen = mock.requests.slice(before)
    expect(seen.length).toBeGreaterThan(0)
    for (const r of seen) {
      expect(JSON.stringify(r.headers)).not.toContain(plainKey)
      expect(r.headers.authorization).toBe(`Bearer ${UPSTREAM_SECRET}`)
    }
  })

  test('a forged identity (headers, _meta) never reaches the upstream: it sees the gateway’s own statement', async () => {
    const before = mock.calls.length
    const requestsBefore = mock.requests.length
    const mcp = await connectMcp(gw.url, teamKey.key, '/mcp', { 'x-forwarded-user': 'admin', 'x-user-id': 'root', 'x-gateway-principal': 'master', 'x-forwarded-for': '10.0.0.1' })
    await mcp.client.callTool({ name: 'mock__alpha', arguments: { text: 'who' }, _meta: { 'ai-gateway/principal': { principal_id: 'master', user_path: '/' }, harmless: 1 } })
    await mcp.close()
    const call = mock.calls.slice(before).find((c) => c.tool === 'alpha')!
    expect(call.meta?.['ai-gateway/principal']).toEqual({ principal_id: teamKey.id, key_id: teamKey.id, user_path: '/team-a/alice' })
    expect(call.meta?.harmless).toBe(1)
    for (const r of mock.requests.slice(requestsBefore)) {
      for (const forged of ['x-forwarded-user', 'x-user-id', 'x-gateway-principal', 'x-forwarded-for']) expect(r.headers[forged]).toBeUndefined()
    }
  })

  test('a hidden tool cannot be called by name, and is answered exactly as an unknown one', async () => {
    const mcp = await connectMcp(gw.url, teamKey.key)
    const names = (await mcp.client.listTools()).tools.map((t) => t.name)
    expect(names).toContain('mock__alpha')
    expect(names).not.toContain('mock__delete_all')
    const callsBefore = mock.calls.length
    const hidden = await mcp.client.callTool({ name: 'mock__delete_all', arguments: {} }).then(
      () => undefined,
      (e: Error & { code?: number }) => e,
    )
    const unknown = await mcp.client.callTool({ name: 'mock__no_such_tool', arguments: {} }).then(
      () => undefined,
      (e: Error & { code?: number }) => e,
    )
    expect(hidden?.code).toBe(-32602)
    expect(hidden?.message.replace('delete_all', 'X')).toBe(unknown!.message.replace('no_such_tool', 'X'))
    expect(mock.calls.slice(callsBefore).some((c) => c.tool === 'delete_all')).toBe(false)
    // And on the one-server endpoint, by its plain name.
    const one = await connectMcp(gw.url, teamKey.key, '/mcp/mock')
    await expect(one.client.callTool({ name: 'delete_all', arguments: {} })).rejects.toThrow(/Unknown tool/)
    await one.close()
    await mcp.close()
  })
})
