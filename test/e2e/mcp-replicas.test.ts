/**
 * MCP across replicas: two gateway processes on one PostgreSQL and one Redis. A server added through the admin API
 * on A is served by B (its definition is in PostgreSQL, the change feed tells B); a session opened on A is
 * answered by B (sessions are signed records, no sticky sessions); a session ended on A is refused by B (Redis);
 * the server removed on A is gone from B.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { writeGatewayYaml } from '../helpers/gateway.ts'
import { connectMcp, rawMcpPost, toolText } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'
import { postgresAvailable, sharedPostgres } from '../helpers/postgres-server.ts'
import { redisAvailable, startRedis, type RunningRedis } from '../helpers/redis-server.ts'

const MASTER = 'master-key-for-mcp-replicas-0123456789ab'
const available = postgresAvailable() && redisAvailable()
let upstream: MockMcpServer
let redis: RunningRedis
let a: GatewayProcess
let b: GatewayProcess

const admin = (g: GatewayProcess, method: string, path: string, body?: unknown) =>
  fetch(`${g.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const auth = { authorization: `Bearer ${MASTER}` }

beforeAll(async () => {
  if (!available) return
  upstream = await startMockMcpServer({ tools: [{ name: 'lookup' }] })
  redis = await startRedis()
  const databaseUrl = await (await sharedPostgres()).freshDatabase()
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, GATEWAY_MASTER_KEY: MASTER, GATEWAY_CONFIG: writeGatewayYaml('mcp:\n  refresh_seconds: 300\n') }
  ;[a, b] = (await Promise.all([spawnGateway(env), spawnGateway(env)])) as [GatewayProcess, GatewayProcess]
}, 60_000)

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await upstream?.stop()
  await redis?.stop()
})

describe.skipIf(!available)('two replicas on one PostgreSQL and one Redis', () => {
  test('a server added on A is served by B; a session of A is answered by B; removed on A, gone from B', async () => {
    expect((await admin(a, 'POST', '/mcp/servers', { name: 'shared', url: upstream.url })).status).toBe(201)

    // B learns of it through the change feed and connects on its own.
    const client = await until('B to serve the server added on A', async () => {
      const c = await connectMcp(b.url, MASTER, '/mcp/shared')
      if ((await c.client.listTools()).tools.some((t) => t.name === 'lookup')) return c
      await c.close()
    })
    expect(toolText(await client.client.callTool({ name: 'lookup', arguments: { text: 'on b' } }))).toBe('lookup: {"text":"on b"}')
    await client.close()
    const onB = await (await admin(b, 'GET', '/mcp/servers/shared')).json()
    expect(onB).toMatchObject({ name: 'shared', source: 'admin' })

    // A session opened on A, used on B.
    await until('A to list the server', async () => (await rawMcpPost(`${a.url}/mcp/shared`, init, auth)).status === 200)
    const opened = await rawMcpPost(`${a.url}/mcp/shared`, init, auth)
    const session = { ...auth, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' }
    const call = (g: GatewayProcess) =>
      rawMcpPost(`${g.url}/mcp/shared`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lookup', arguments: { text: 'x' } } }, session)
    const answered = await call(b)
    expect(answered.status).toBe(200)
    expect(answered.body.result.content[0].text).toBe('lookup: {"text":"x"}')

    // Ended on A: B refuses it (the ended session is remembered in Redis).
    expect((await fetch(`${a.url}/mcp/shared`, { method: 'DELETE', headers: session })).status).toBe(204)
    expect((await call(b)).status).toBe(404)

    // Removed on A: B answers its endpoint as an unknown server.
    expect((await admin(a, 'DELETE', '/mcp/servers/shared')).status).toBe(200)
    await until('B to drop the server removed on A', async () => (await rawMcpPost(`${b.url}/mcp/shared`, init, auth)).status === 404)
    expect((await admin(b, 'GET', '/mcp/servers/shared')).status).toBe(404)
  }, 60_000)
})
