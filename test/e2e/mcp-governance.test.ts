/**
 * Governed tool calls: rate limits and budgets (the /admin/rate-limits and /admin/budgets definitions and the
 * shared counters), a price per call, deadlines, answer-size limits; and the transport's refusals of bad input,
 * each with its status and its audit entry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp, rawMcpPost, toolText } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'

const MASTER = 'mcp-governance-master-key-0123456789abcdef'

let gw: RunningGateway
let mock: MockMcpServer
let slow: MockMcpServer
let audit: AuditAdmin

async function admin(path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${gw.url}/admin${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

const rpcFailure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: Error & { code?: number; data?: any }) => e,
  )

beforeAll(async () => {
  mock = await startMockMcpServer({ tools: [{ name: 'cheap' }, { name: 'pricey' }, { name: 'big', answer: () => 'x'.repeat(10_000) }] })
  slow = await startMockMcpServer({ tools: [{ name: 'sleepy', delayMs: 3000 }] })
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    tools:
      url: ${mock.url}
      price_per_call_usd: 0.02
      tool_prices_usd: { pricey: 0.5 }
      max_response_bytes: 4096
    slow:
      url: ${slow.url}
      timeout_seconds: 1
`),
  })
  await gw.gateway.mcp.catalog.settled()
  audit = auditAdmin(gw.url, MASTER)
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  await Promise.all([mock?.stop(), slow?.stop()])
})

async function newKey(name: string, userPath?: string): Promise<{ key: string; id: string }> {
  return admin('/keys', { name, ...(userPath ? { user_path: userPath } : {}) })
}

describe('limits', () => {
  test('tool_calls_per_minute: the call past the limit is refused with 429 in the JSON-RPC error and the audit entry', async () => {
    const k = await newKey('rate-limited')
    await admin('/rate-limits', { scope: { key_id: k.id }, tool_calls_per_minute: 2 })
    const mcp = await connectMcp(gw.url, k.key, '/mcp', { 'x-request-id': 'mcp-rate-limited' })
    await mcp.client.callTool({ name: 'tools__cheap', arguments: {} })
    await mcp.client.callTool({ name: 'tools__cheap', arguments: {} })
    const refused = await rpcFailure(mcp.client.callTool({ name: 'tools__cheap', arguments: {} }))
    expect(refused.data).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', status_code: 429 })
    // Listing is not a tool call.
    expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0)
    await mcp.close()
    const page = await audit.eventually(
      () => audit.list({ search: 'mcp-rate-limited', method: 'tools/call', status_code: '429' }),
      (p) => p.total === 1,
    )
    expect(page.entries[0]!.error_type).toBe('rate_limit_error')
  })

  test('a price per call is charged to the budget; the call it cannot pay is refused', async () => {
    const k = await newKey('budgeted', '/budget-team')
    const budget = await admin('/budgets', { scope: { user_path: '/budget-team' }, window: 'day', limit_usd: 0.05 })
    const mcp = await connectMcp(gw.url, k.key)
    await mcp.client.callTool({ name: 'tools__cheap', arguments: {} })
    await mcp.client.callTool({ name: 'tools__cheap', arguments: {} })
    const refused = await rpcFailure(mcp.client.callTool({ name: 'tools__cheap', arguments: {} }))
    expect(refused.data).toMatchObject({ code: 'budget_exceeded', status_code: 429 })
    const tooDear = await rpcFailure(mcp.client.callTool({ name: 'tools__pricey', arguments: {} }))
    expect(tooDear.data.code).toBe('budget_exceeded')
    await mcp.close()
    const listed = (await admin('/budgets')).data.find((b: { id: string }) => b.id === budget.id)
    expect(listed.spent_usd).toBeCloseTo(0.04, 6)
  })

  test('priced calls are usage: /admin/usage counts them in calls with their price, under the server and the tool', async () => {
    const k = await newKey('usage-counted', '/usage-team')
    const budget = await admin('/budgets', { scope: { key_id: k.id }, window: 'day', limit_usd: 10 })
    const mcp = await connectMcp(gw.url, k.key)
    await mcp.client.callTool({ name: 'tools__cheap', arguments: {} })
    await mcp.client.callTool({ name: 'tools__pricey', arguments: {} })
    await mcp.client.callTool({ name: 'tools__pricey', arguments: {} })
    // Refused before the server: not usage.
    await rpcFailure(mcp.client.callTool({ name: 'tools__hidden_or_missing', arguments: {} }))
    await mcp.close()
    const byKey = (await admin('/usage/breakdown?by=key')).data.find((row: { key_id: string }) => row.key_id === k.id)
    expect(byKey).toMatchObject({ requests: 3, calls: 3 })
    expect(byKey.cost_usd).toBeCloseTo(1.02, 6)
    const byModel = (await admin('/usage/breakdown?by=model')).data.filter((row: { model: string }) => row.model === 'cheap' || row.model === 'pricey')
    expect(byModel.find((row: { model: string }) => row.model === 'pricey').calls).toBeGreaterThanOrEqual(2)
    const byProvider = (await admin('/usage/breakdown?by=provider')).data.find((row: { provider: string }) => row.provider === 'tools')
    expect(byProvider.calls).toBeGreaterThanOrEqual(3)
    expect((await admin('/usage/summary')).calls).toBeGreaterThanOrEqual(3)
    const listed = (await admin('/budgets')).data.find((b: { id: string }) => b.id === budget.id)
    expect(listed.spent_usd).toBeCloseTo(1.02, 6)
  })

  test('a call past its server’s deadline fails with 504 and the request timeout code', async () => {
    const mcp = await connectMcp(gw.url, MASTER)
    const started = Date.now()
    const failed = await rpcFailure(mcp.client.callTool({ name: 'slow__sleepy', arguments: {} }))
    expect(Date.now() - started).toBeLessThan(2500)
    expect(failed.code).toBe(-32001)
    expect(failed.data).toMatchObject({ code: 'mcp_upstream_timeout', status_code: 504, server: 'slow' })
    await mcp.close()
  })

  test('an answer over the server’s max_response_bytes fails the call; the next call works', async () => {
    const mcp = await connectMcp(gw.url, MASTER)
    const failed = await rpcFailure(mcp.client.callTool({ name: 'tools__big', arguments: {} }))
    expect(failed.data).toMatchObject({ code: 'mcp_upstream_response_too_large', status_code: 502 })
    expect(toolText(await mcp.client.callTool({ name: 'tools__cheap', arguments: { text: 'ok' } }))).toBe('cheap: {"text":"ok"}')
    await mcp.close()
  })
})

describe('bad input on the transport', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }

  async function session(): Promise<string> {
    const res = await rawMcpPost(`${gw.url}/mcp`, init, { authorization: `Bearer ${MASTER}` })
    expect(res.status).toBe(200)
    expect(res.body.result.protocolVersion).toBe('2025-11-25')
    return res.headers.get('mcp-session-id')!
  }

  test('an old protocol version is negotiated; an unknown one offered is answered with the latest', async () => {
    const old = await rawMcpPost(`${gw.url}/mcp`, { ...init, params: { ...init.params, protocolVersion: '2025-03-26' } }, { authorization: `Bearer ${MASTER}` })
    expect(old.body.result.protocolVersion).toBe('2025-03-26')
    const future = await rawMcpPost(`${gw.url}/mcp`, { ...init, params: { ...init.params, protocolVersion: '2099-01-01' } }, { authorization: `Bearer ${MASTER}` })
    expect(future.body.result.protocolVersion).toBe('2025-11-25')
  })

  test.each([
    [
      'an unsupported MCP-Protocol-Version header',
      { 'mcp-protocol-version': '1999-01-01' },
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      400,
      'unsupported_protocol_version',
    ],
    ['a body that is not JSON', {}, '{"jsonrpc": ', 400, 'invalid_json'],
    ['a JSON-RPC batch', {}, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]), 400, 'jsonrpc_batch_not_supported'],
    ['a message that is not JSON-RPC', {}, JSON.stringify({ hello: 'world' }), 400, 'invalid_jsonrpc'],
    ['a non-JSON content type', { 'content-type': 'text/plain' }, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), 415, 'unsupported_media_type'],
    ['a foreign Origin', { origin: 'https://evil.example' }, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), 403, 'origin_not_allowed'],
  ] as const)('%s: a clear error with its status, and an audit entry', async (_name, headers, body, status, code) => {
    const sessionId = await session()
    const requestId = `mcp-bad-${code}`
    const res = await rawMcpPost(`${gw.url}/mcp`, body, { authorization: `Bearer ${MASTER}`, 'mcp-session-id': sessionId, 'x-request-id': requestId, ...headers })
    expect(res.status).toBe(status)
    expect(res.body.jsonrpc).toBe('2.0')
    expect(res.body.id).toBeNull()
    expect(res.body.error.data).toMatchObject({ code, status_code: status })
    const entry = await audit.entryFor(requestId)
    expect(entry.status_code).toBe(status)
    expect(entry.data.error_code).toBe(code)
  })

  test('a body over mcp.max_request_bytes is a 413', async () => {
    const sessionId = await session()
    const res = await rawMcpPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tools__cheap', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } } },
      {
        authorization: `Bearer ${MASTER}`,
        'mcp-session-id': sessionId,
      },
    )
    expect(res.status).toBe(413)
    expect(res.body.error.data.code).toBe('request_too_large')
  })

  test('an unknown method is -32601; ping answers without an audit entry', async () => {
    const sessionId = await session()
    const unknown = await rawMcpPost(`${gw.url}/mcp`, { jsonrpc: '2.0', id: 'u1', method: 'tools/frobnicate' }, { authorization: `Bearer ${MASTER}`, 'mcp-session-id': sessionId })
    expect(unknown.status).toBe(200)
    expect(unknown.body).toMatchObject({ id: 'u1', error: { code: -32601 } })
    const ping = await rawMcpPost(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 'p1', method: 'ping' },
      { authorization: `Bearer ${MASTER}`, 'mcp-session-id': sessionId, 'x-request-id': 'mcp-ping-quiet' },
    )
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 'p1', result: {} })
    await Bun.sleep(300)
    expect((await audit.list({ search: 'mcp-ping-quiet' })).total).toBe(0)
  })
})

describe('notification stream', () => {
  test('resuming with Last-Event-ID: told at once when the lists changed meanwhile, on any replica', async () => {
    const sessionId = (
      await rawMcpPost(
        `${gw.url}/mcp`,
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { authorization: `Bearer ${MASTER}` },
      )
    ).headers.get('mcp-session-id')!
    const open = async (lastEventId?: string) => {
      const controller = new AbortController()
      const res = await fetch(`${gw.url}/mcp`, {
        headers: { authorization: `Bearer ${MASTER}`, 'mcp-session-id': sessionId, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: controller.signal,
      })
      expect(res.headers.get('content-type')).toBe('text/event-stream')
      const reader = res.body!.getReader()
      const first = new TextDecoder().decode((await reader.read()).value)
      return { first, reader, close: () => controller.abort() }
    }
    const one = await open()
    const eventId = /id: (\S+)/.exec(one.first)![1]!
    one.close()
    // Unchanged lists: nothing to tell.
    const same = await open(eventId)
    expect(same.first).not.toContain('list_changed')
    same.close()
    await mock.setTools([{ name: 'cheap' }, { name: 'pricey' }, { name: 'big' }, { name: 'newcomer' }])
    const deadline = Date.now() + 5000
    while (!gw.gateway.mcp.catalog.get('tools')!.tools.has('newcomer') && Date.now() < deadline) await Bun.sleep(20)
    const resumed = await open(eventId)
    let text = resumed.first
    if (!text.includes('list_changed')) text += new TextDecoder().decode((await resumed.reader.read()).value)
    expect(text).toContain('notifications/tools/list_changed')
    resumed.close()
  })
})
