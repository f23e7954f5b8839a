/**
 * @module The official MCP SDK client connected to a gateway's MCP endpoint with a gateway key, for tests.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export interface GatewayMcpClient {
  client: Client
  transport: StreamableHTTPClientTransport
  close(): Promise<void>
}

/** `path`: `/mcp` or `/mcp/<server>`; `headers` are sent on every request besides the key. */
export async function connectMcp(gatewayUrl: string, key: string, path = '/mcp', headers: Record<string, string> = {}): Promise<GatewayMcpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } } })
  const client = new Client({ name: 'gateway-test', version: '1.0.0' }, { capabilities: {} })
  await client.connect(transport)
  return {
    client,
    transport,
    close: () => client.close(),
  }
}

/** The text parts of a tools/call result, joined. */
export function toolText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? []
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('')
}

/** Posts one raw JSON-RPC message to an MCP endpoint (for what the SDK would never send). */
export async function rawMcpPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed }
}
