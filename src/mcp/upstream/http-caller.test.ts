import { afterAll, describe, expect, test } from 'bun:test'
import { UpstreamRedirected, UpstreamResponseTooLarge } from './bounded-fetch.ts'
import { soleEventData, StreamableHttpCaller } from './http-caller.ts'

const received: Record<string, unknown>[] = []
const sse = (...messages: unknown[]) =>
  new Response(messages.map((m) => `event: message\ndata: ${typeof m === 'string' ? m : JSON.stringify(m)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const path = new URL(request.url).pathname
    const body = (await request.json()) as Record<string, unknown>
    received.push({ path, body, session: request.headers.get('mcp-session-id') })
    const id = body.id
    if (path === '/redirect') return new Response(null, { status: 307, headers: { location: 'http://elsewhere.invalid/' } })
    if (path === '/gone') return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, { status: 404 })
    if (path === '/split-data')
      return new Response(`event: message\ndata: {"jsonrpc":"2.0",\ndata: "id":${JSON.stringify(id)},"result":{"lines":2}}\n\n`, {
        headers: { 'content-type': 'text/event-stream' },
      })
    if (path === '/big-event') return sse({ jsonrpc: '2.0', id, result: { text: 'x'.repeat(5000) } })
    if (path === '/rpc-error') return Response.json({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad args', data: { field: 'n' } } })
    if (path === '/asks') {
      if (body.method !== 'tools/call') return new Response(null, { status: 202 })
      return sse(
        { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
        { jsonrpc: '2.0', id: 'srv-2', method: 'sampling/createMessage', params: { messages: [] } },
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
        'not json',
        { jsonrpc: '2.0', id, result: { content: [] } },
      )
    }
    return sse({ jsonrpc: '2.0', id, result: { ok: true } })
  },
})
afterAll(() => server.stop(true))

const caller = (path: string, onNotification: (method: string) => void = () => {}) =>
  new StreamableHttpCaller({
    url: `http://127.0.0.1:${server.port}${path}`,
    headers: { authorization: 'Bearer upstream' },
    sessionId: 'sess-1',
    protocolVersion: '2025-11-25',
    maxResponseBytes: 1024,
    onNotification,
  })
const signal = () => new AbortController().signal

describe('StreamableHttpCaller', () => {
  test('a result on an event stream; the session and protocol headers sent; string ids', async () => {
    expect(await caller('/ok').call('tools/call', { name: 't' }, signal())).toEqual({ kind: 'result', result: { ok: true } })
    const sent = received.at(-1)!
    expect(sent.session).toBe('sess-1')
    expect((sent.body as { id: unknown }).id).toBeTypeOf('string')
  })

  test('an answer whose one event has two data lines is their join', async () => {
    expect(await caller('/split-data').call('tools/call', {}, signal())).toEqual({ kind: 'result', result: { lines: 2 } })
  })

  test('soleEventData: the data of exactly one whole event with one data line, else nothing', () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    expect(soleEventData(bytes('event: message\ndata: {"id":"g1"}\n\n'))).toBe('{"id":"g1"}')
    expect(soleEventData(bytes('data:{"id":"g1"}\n\n'))).toBe('{"id":"g1"}')
    expect(soleEventData(bytes('id: 7\ndata: é\n\n'))).toBe('é')
    for (const other of [
      'event: message\ndata: {"a":\ndata: 1}\n\n',
      'data: 1\n\ndata: 2\n\n',
      'event: message\r\ndata: 1\r\n\r\n',
      'event: message\ndata: 1\n',
      ': comment\n\n',
      'event: message\n\n',
    ])
      expect(soleEventData(bytes(other))).toBeUndefined()
  })

  test('a JSON-RPC error, a forgotten session, a redirect, an event over the limit', async () => {
    expect(await caller('/rpc-error').call('tools/call', {}, signal())).toEqual({ kind: 'rpc_error', error: { code: -32602, message: 'bad args', data: { field: 'n' } } })
    expect(await caller('/gone').call('tools/call', {}, signal())).toEqual({ kind: 'session_gone' })
    const redirected = await caller('/redirect').call('tools/call', {}, signal())
    expect(redirected.kind === 'failed' && redirected.error).toBeInstanceOf(UpstreamRedirected)
    const big = await caller('/big-event').call('tools/call', {}, signal())
    expect(big.kind === 'failed' && big.error).toBeInstanceOf(UpstreamResponseTooLarge)
  })

  test('without a relay: the server’s ping is answered, its sampling refused; other notifications go to the connection', async () => {
    const notified: string[] = []
    received.length = 0
    expect(await caller('/asks', (m) => notified.push(m)).call('tools/call', {}, signal())).toEqual({ kind: 'result', result: { content: [] } })
    expect(notified).toEqual(['notifications/tools/list_changed'])
    const deadline = Date.now() + 2000
    while (received.length < 3 && Date.now() < deadline) await Bun.sleep(10)
    const answers = received.map((r) => r.body as Record<string, any>).filter((b) => b.method === undefined)
    expect(answers.find((a) => a.id === 'srv-1')).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} })
    expect(answers.find((a) => a.id === 'srv-2')?.error.code).toBe(-32601)
  })

  test('with a relay: the server’s request is asked of it and its answer sent back', async () => {
    received.length = 0
    const asked: string[] = []
    const relay = {
      notify: () => {},
      ask: async (method: string) => {
        asked.push(method)
        return { result: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } }
      },
    }
    await caller('/asks').call('tools/call', {}, signal(), relay)
    const deadline = Date.now() + 2000
    while (received.length < 3 && Date.now() < deadline) await Bun.sleep(10)
    expect(asked).toEqual(['sampling/createMessage'])
    const answer = received.map((r) => r.body as Record<string, any>).find((b) => b.id === 'srv-2')
    expect(answer?.result.content.text).toBe('hi')
  })

  test('an aborted call sends notifications/cancelled for it', async () => {
    received.length = 0
    const controller = new AbortController()
    controller.abort()
    const outcome = await caller('/ok').call('tools/call', {}, controller.signal)
    expect(outcome.kind).toBe('failed')
    const deadline = Date.now() + 2000
    while (received.length < 1 && Date.now() < deadline) await Bun.sleep(10)
    expect(received.map((r) => (r.body as { method?: string }).method)).toContain('notifications/cancelled')
  })
})
