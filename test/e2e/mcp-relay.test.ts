/**
 * What an upstream server says to the client during a call, relayed through the gateway on the POST's event stream
 * (MCP Streamable HTTP): progress notifications under the client's own progress token and log messages as they
 * arrive, then the result, which ends the stream; the server's sampling and elicitation requests about the call,
 * answered by the client (the official SDK client) and the answer relayed back. A client that did not declare the
 * capability is never asked; a call with nothing to relay is answered as plain JSON.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { createHttpApp } from '../../src/http/server.ts'
import { rawMcpPost, toolText } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'
import { everythingStdio, startEverythingHttp, type EverythingHttp } from '../helpers/everything-server.ts'

const MASTER = 'mcp-relay-master-key-0123456789abcdef01'

let gw: RunningGateway
let upstream: MockMcpServer
let everything: EverythingHttp
let audit: AuditAdmin

beforeAll(async () => {
  upstream = await startMockMcpServer({
    tools: [
      { name: 'slow_job', progress: 3, answer: () => 'job done' },
      { name: 'ask_model', sample: 'Say hello' },
      { name: 'ask_user', elicit: 'What is the answer?' },
      { name: 'plain' },
    ],
  })
  everything = await startEverythingHttp('streamableHttp')
  const stdio = everythingStdio()
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    work:
      url: ${upstream.url}
    everything:
      url: ${everything.url}
    local:
      command: ${JSON.stringify(stdio.command)}
      args: ${JSON.stringify(stdio.args)}
`),
  })
  await gw.gateway.mcp.catalog.settled()
  audit = auditAdmin(gw.url, MASTER)
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  await Promise.all([upstream?.stop(), everything?.stop()])
})

async function client(path: string, capabilities: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities })
  await c.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${MASTER}`, ...headers } } }))
  return c
}

describe('progress and log messages', () => {
  test.each([
    ['/mcp/work', 'slow_job'],
    ['/mcp', 'work__slow_job'],
  ])('%s: the server’s progress reaches the client under its own token as it arrives, then the result', async (path, tool) => {
    const c = await client(path)
    const logs: unknown[] = []
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data))
    const progress: { progress: number; total?: number; message?: string }[] = []
    const result = await c.callTool({ name: tool, arguments: {} }, undefined, { onprogress: (p) => void progress.push(p) })
    expect(toolText(result)).toBe('job done')
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ])
    expect(logs).toEqual(['slow_job starts'])
    await c.close()
  })

  test('on the wire: an event stream of the notifications, with the client’s token, ended by the result; without a token, JSON', async () => {
    const init = await rawMcpPost(
      `${gw.url}/mcp/work`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { authorization: `Bearer ${MASTER}` },
    )
    const headers = {
      authorization: `Bearer ${MASTER}`,
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': 'mcp-relay-wire',
    }
    const res = await fetch(`${gw.url}/mcp/work`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 'call-7', method: 'tools/call', params: { name: 'slow_job', arguments: {}, _meta: { progressToken: 'client-token-9' } } }),
    })
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.includes('data: '))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)))
    expect(events.map((e) => e.method ?? 'result')).toEqual(['notifications/message', 'notifications/progress', 'notifications/progress', 'notifications/progress', 'result'])
    expect(events.filter((e) => e.method === 'notifications/progress').map((e) => e.params.progressToken)).toEqual(['client-token-9', 'client-token-9', 'client-token-9'])
    expect(events.at(-1)).toMatchObject({ id: 'call-7', result: { content: [{ type: 'text', text: 'job done' }] } })
    // The gateway's own progress token went upstream, never the client's.
    const sent = upstream.calls.filter((c) => c.tool === 'slow_job').at(-1)!
    expect(sent.meta?.progressToken).toBeDefined()
    expect(sent.meta?.progressToken).not.toBe('client-token-9')

    const plain = await fetch(`${gw.url}/mcp/work`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'slow_job', arguments: {} } }),
    })
    expect(plain.headers.get('content-type')).toStartWith('application/json')
    expect(((await plain.json()) as any).result.content[0].text).toBe('job done')

    const page = await audit.eventually(
      () => audit.list({ method: 'tools/call', search: 'mcp-relay-wire' }),
      (p) => p.total === 2,
    )
    for (const row of page.entries) expect(row.status_code).toBe(200)
    const details = await Promise.all(page.entries.map((row) => audit.detail(row.id)))
    expect(details.map((d) => d.data.mcp?.result_bytes).every((n) => (n ?? 0) > 0)).toBe(true)
    expect(details.map((d) => d.stream).sort()).toEqual([false, true])
  })
})

describe('the HTTP shell', () => {
  test.each(['/mcp', '/mcp/work'])('%s: the MCP answer is the Response sent, not a copy the router re-streams', async (path) => {
    const app = createHttpApp(gw.gateway)
    const mcp = gw.gateway.mcp
    const original = mcp.handle.bind(mcp)
    const answered: Response[] = []
    mcp.handle = async (input) => {
      const response = await original(input)
      answered.push(response)
      return response
    }
    try {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
      const sent = await app.handle(
        new Request(`http://127.0.0.1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', cookie: 'a=b' },
          body: JSON.stringify(init),
        }),
      )
      expect(answered).toHaveLength(1)
      expect(sent).toBe(answered[0]!)
      expect(sent.headers.get('set-cookie')).toBeNull()
    } finally {
      mcp.handle = original
    }
  })
})

describe('sampling and elicitation', () => {
  test.each([
    ['/mcp/work', 'ask_model'],
    ['/mcp', 'work__ask_model'],
  ])('%s: the server’s sampling request is answered by the client, and the answer relayed back', async (path, tool) => {
    const c = await client(path, { sampling: {} })
    const asked: unknown[] = []
    c.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params.messages[0]?.content)
      return { role: 'assistant', content: { type: 'text', text: 'hello from the client' }, model: 'client-model' }
    })
    const result = await c.callTool({ name: tool, arguments: {} })
    expect(toolText(result)).toBe('sampled: hello from the client')
    expect(asked).toEqual([{ type: 'text', text: 'Say hello' }])
    await c.close()
  })

  test('a form elicitation reaches the client and its answer the server', async () => {
    const c = await client('/mcp/work', { elicitation: { form: {} } })
    c.setRequestHandler(ElicitRequestSchema, (request) => {
      expect(request.params.message).toBe('What is the answer?')
      return { action: 'accept', content: { answer: '42' } }
    })
    expect(toolText(await c.callTool({ name: 'ask_user', arguments: {} }))).toBe('elicited: accept {"answer":"42"}')
    await c.close()
  })

  test('each request of the server’s is an audit entry: its method, the server, the tool call, the answer’s status; no body', async () => {
    const c = await client('/mcp/work', { sampling: {} }, { 'x-request-id': 'mcp-relay-audit-ok' })
    c.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'secret answer' }, model: 'm' }))
    await c.callTool({ name: 'ask_model', arguments: {} })
    await c.close()
    const refusedClient = await client('/mcp/work', {}, { 'x-request-id': 'mcp-relay-audit-refused' })
    await refusedClient.callTool({ name: 'ask_model', arguments: {} })
    await refusedClient.close()
    for (const [probe, status, code] of [
      ['mcp-relay-audit-ok', 200, ''],
      ['mcp-relay-audit-refused', 404, 'mcp_client_capability_missing'],
    ] as const) {
      const page = await audit.eventually(
        () => audit.list({ method: 'sampling/createMessage', search: probe }),
        (p) => p.total === 1,
      )
      const entry = await audit.detail(page.entries[0]!.id)
      expect(entry).toMatchObject({ method: 'sampling/createMessage', path: '/mcp/work', provider: 'mcp', provider_name: 'work', resolved_model: 'ask_model', status_code: status })
      expect(entry.data.error_code ?? '').toBe(code)
      expect(JSON.stringify(entry)).not.toContain('Say hello')
      expect(JSON.stringify(entry)).not.toContain('secret answer')
    }
  })

  test('a client without the capability is never asked: the server gets an error for it, and says so', async () => {
    const c = await client('/mcp/work', {})
    const result = (await c.callTool({ name: 'ask_model', arguments: {} })) as { isError?: boolean }
    expect(result.isError).toBe(true)
    expect(toolText(result)).toContain('does not support sampling/createMessage')
    const elicit = (await c.callTool({ name: 'ask_user', arguments: {} })) as { isError?: boolean }
    expect(elicit.isError).toBe(true)
    expect(toolText(elicit)).toContain('does not support elicitation/create')
    await c.close()
  })

  test('an answer from another session does not reach the call', async () => {
    const c = await client('/mcp/work', { sampling: {} })
    let release: (() => void) | undefined
    const waiting = new Promise<void>((resolve) => (release = resolve))
    let relayedId: unknown
    c.setRequestHandler(CreateMessageRequestSchema, async (_request, extra) => {
      relayedId = extra.requestId
      // Another session (same key) answers first with the id the gateway used; it must be ignored.
      const other = await rawMcpPost(
        `${gw.url}/mcp/work`,
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'o', version: '1' } } },
        { authorization: `Bearer ${MASTER}` },
      )
      const forged = await rawMcpPost(
        `${gw.url}/mcp/work`,
        { jsonrpc: '2.0', id: relayedId, result: { role: 'assistant', content: { type: 'text', text: 'forged' }, model: 'x' } },
        { authorization: `Bearer ${MASTER}`, 'mcp-session-id': other.headers.get('mcp-session-id')! },
      )
      expect(forged.status).toBe(202)
      release?.()
      return { role: 'assistant', content: { type: 'text', text: 'genuine' }, model: 'client-model' }
    })
    const result = await c.callTool({ name: 'ask_model', arguments: {} })
    await waiting
    expect(typeof relayedId).toBe('string')
    expect(toolText(result)).toBe('sampled: genuine')
    await c.close()
  })
})

describe('the reference server (server-everything)', () => {
  test('over stdio: its long-running operation’s progress reaches the client', async () => {
    const c = await client('/mcp/local')
    const progress: number[] = []
    const result = await c.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    })
    expect(toolText(result)).toContain('Long running operation completed')
    // The last step's notification and the result come together: the SDK client handles notifications a tick
    // after responses, so it may drop that one itself (it does so on a direct connection too).
    expect(progress.slice(0, 2)).toEqual([1, 2])
    await c.close()
  })

  test('over Streamable HTTP: its sampling request is answered by the client', async () => {
    const c = await client('/mcp', { sampling: {} })
    c.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const text = (request.params.messages[0]?.content as { text?: string } | undefined)?.text ?? ''
      return { role: 'assistant', content: { type: 'text', text: `answered: ${text}` }, model: 'client-model' }
    })
    const result = await c.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt: 'ping', maxTokens: 10 } })
    expect(JSON.stringify(result)).toContain('answered: Resource trigger-sampling-request context: ping')
    await c.close()
  })
})
