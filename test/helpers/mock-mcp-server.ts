/**
 * @module A real MCP server over Streamable HTTP for tests (the official SDK's `McpServer` and its Web-standard
 * transport on Bun.serve, port 0), whose tools the test chooses. It records what reached it (HTTP headers, each
 * tools/call's arguments and `_meta`), can be restarted on the same port with other tools (its sessions are
 * forgotten, as a real restart does), and can require a bearer token.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

export interface MockTool {
  name: string
  description?: string
  /** Text the tool answers; default: `<name>: <arguments as JSON>`. */
  answer?: (args: Record<string, unknown>) => string
  /** Answer with `isError: true`. */
  fails?: boolean
  /** Wait this long before answering. */
  delayMs?: number
  /** Send this many `notifications/progress` (and one log message) before answering, when the call has a progress token. */
  progress?: number
  /** Ask the client for sampling (`sampling/createMessage` with this prompt) and answer with the text it returns. */
  sample?: string
  /** Ask the client for a form elicitation with this message and answer with its action and content. */
  elicit?: string
}

export interface RecordedRequest {
  method: string
  headers: Record<string, string>
  body: unknown
}

export interface RecordedCall {
  tool: string
  arguments: Record<string, unknown>
  meta: Record<string, unknown> | undefined
}

export interface MockMcpServer {
  url: string
  port: number
  requests: RecordedRequest[]
  calls: RecordedCall[]
  /** Stops and starts again on the same port: sessions are gone; `tools` replaces the tool set. */
  restart(tools?: MockTool[]): Promise<void>
  /** Changes the tools and tells connected clients (`notifications/tools/list_changed`). */
  setTools(tools: MockTool[]): Promise<void>
  stop(): Promise<void>
}

export interface MockMcpOptions {
  tools: MockTool[]
  /** Every request must carry `Authorization: Bearer <token>` (answered 401 with a resource_metadata challenge otherwise). */
  bearerToken?: string | (() => string | undefined)
  /** Extra routes (an authorization server's endpoints, metadata), tried before MCP. */
  routes?: (request: Request, url: URL) => Response | Promise<Response | undefined> | undefined
  name?: string
  /** Keep `requests` and `calls` (default); a benchmark's long run turns it off. */
  keepRecords?: boolean
}

export async function startMockMcpServer(options: MockMcpOptions): Promise<MockMcpServer> {
  let tools = options.tools
  const keep = options.keepRecords ?? true
  const requests: RecordedRequest[] = []
  const calls: RecordedCall[] = []
  let sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }>()

  function register(server: McpServer, tool: MockTool): void {
    server.registerTool(
      tool.name,
      { description: tool.description ?? `The ${tool.name} tool`, inputSchema: { text: z.string().optional(), n: z.number().optional() } },
      async (args, extra) => {
        if (keep) calls.push({ tool: tool.name, arguments: args as Record<string, unknown>, meta: extra._meta as Record<string, unknown> | undefined })
        if (tool.delayMs) await Bun.sleep(tool.delayMs)
        const progressToken = extra._meta?.progressToken
        if (tool.progress && progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `${tool.name} starts` } })
          for (let i = 1; i <= tool.progress; i++) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: tool.progress, message: `step ${i}` } })
            await Bun.sleep(5)
          }
        }
        if (tool.sample) {
          const sampled = await extra.sendRequest(
            { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: tool.sample } }], maxTokens: 50 } },
            CreateMessageResultSchema,
          )
          return { content: [{ type: 'text' as const, text: `sampled: ${sampled.content.type === 'text' ? sampled.content.text : sampled.content.type}` }] }
        }
        if (tool.elicit) {
          const elicited = await extra.sendRequest(
            {
              method: 'elicitation/create',
              params: { mode: 'form', message: tool.elicit, requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
            },
            ElicitResultSchema,
          )
          return { content: [{ type: 'text' as const, text: `elicited: ${elicited.action} ${JSON.stringify(elicited.content ?? null)}` }] }
        }
        const text = tool.answer ? tool.answer(args as Record<string, unknown>) : `${tool.name}: ${JSON.stringify(args)}`
        return { content: [{ type: 'text' as const, text }], ...(tool.fails ? { isError: true } : {}) }
      },
    )
  }

  function newServer(): McpServer {
    const server = new McpServer({ name: options.name ?? 'mock-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, logging: {} } })
    for (const tool of tools) register(server, tool)
    return server
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const extra = await options.routes?.(request, url)
    if (extra) return extra
    if (keep) {
      const body =
        request.method === 'POST'
          ? await request
              .clone()
              .json()
              .catch(() => undefined)
          : undefined
      requests.push({ method: request.method, headers: Object.fromEntries(request.headers), body })
    }
    const expected = typeof options.bearerToken === 'function' ? options.bearerToken() : options.bearerToken
    if (options.bearerToken !== undefined && request.headers.get('authorization') !== `Bearer ${expected}`) {
      return new Response(JSON.stringify({ error: 'invalid_token' }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp"` },
      })
    }
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId) {
      const session = sessions.get(sessionId)
      if (!session) return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, { status: 404 })
      return session.transport.handleRequest(request)
    }
    const server = newServer()
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server })
      },
    })
    await server.connect(transport)
    return transport.handleRequest(request)
  }

  let http = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: handle, idleTimeout: 0 })
  const port = http.port!
  const closeSessions = async () => {
    const open = [...sessions.values()]
    sessions = new Map()
    await Promise.all(open.map((s) => s.server.close().catch(() => {})))
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    calls,
    async restart(next) {
      await http.stop(true)
      await closeSessions()
      if (next) tools = next
      http = Bun.serve({ port, hostname: '127.0.0.1', fetch: handle, idleTimeout: 0 })
    },
    async setTools(next) {
      tools = next
      for (const { server } of sessions.values()) {
        // The simplest way to make a running McpServer list other tools: register the new ones, remove the rest.
        const registered = (server as unknown as { _registeredTools: Record<string, { remove(): void }> })._registeredTools
        for (const name of Object.keys(registered)) if (!next.some((t) => t.name === name)) registered[name]!.remove()
        for (const tool of next) if (!registered[tool.name]) register(server, tool)
      }
    },
    async stop() {
      await http.stop(true)
      await closeSessions()
    },
  }
}
