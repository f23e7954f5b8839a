/**
 * Upstream MCP servers as they really behave: server-everything over Streamable HTTP and over the older HTTP+SSE
 * transport, a stdio process that dies, an HTTP server that restarts with other tools, tool lists that change
 * while clients listen. Regression tests for the peer defect "empty or stale tool list after a server restart".
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { everythingStdio, startEverythingHttp, type EverythingHttp } from '../helpers/everything-server.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { connectMcp, toolText } from '../helpers/mcp-client.ts'
import { startMockMcpServer, type MockMcpServer } from '../helpers/mock-mcp-server.ts'

const MASTER = 'mcp-upstreams-master-key-0123456789abcdef'

let gw: RunningGateway
let mock: MockMcpServer
let everythingHttp: EverythingHttp
let everythingSse: EverythingHttp
/** Each start of the crash-looping server appends one character here. */
const crashLog = join(mkdtempSync(join(tmpdir(), 'mcp-crash-')), 'starts')

async function eventually<T>(read: () => Promise<T> | T, check: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last: ${JSON.stringify(value).slice(0, 400)}`)
    await Bun.sleep(50)
  }
}

beforeAll(async () => {
  ;[mock, everythingHttp, everythingSse] = await Promise.all([
    startMockMcpServer({ tools: [{ name: 'alpha' }, { name: 'beta' }] }),
    startEverythingHttp('streamableHttp'),
    startEverythingHttp('sse'),
  ])
  const { command, args } = everythingStdio()
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  health_interval_seconds: 1
  servers:
    stdio:
      command: ${JSON.stringify(command)}
      args: ${JSON.stringify(args)}
    http:
      url: ${everythingHttp.url}
    legacy:
      url: ${everythingSse.url}
      transport: sse
    mock:
      url: ${mock.url}
    crashing:
      command: ${JSON.stringify(process.execPath)}
      args: ["-e", ${JSON.stringify(`require('node:fs').appendFileSync(${JSON.stringify(crashLog)}, 'x'); process.exit(3)`)}]
`),
  })
  await gw.gateway.mcp.catalog.settled()
}, 60_000)

let stopped = false
afterAll(async () => {
  if (!stopped) await gw?.stop()
  await Promise.all([mock?.stop(), everythingHttp?.stop(), everythingSse?.stop()])
})

describe('transports', () => {
  for (const server of ['stdio', 'http', 'legacy']) {
    test(`server-everything over ${server}: listed and callable`, async () => {
      expect(gw.gateway.mcp.catalog.status(server)?.state).toBe('ready')
      const mcp = await connectMcp(gw.url, MASTER)
      const names = (await mcp.client.listTools()).tools.map((t) => t.name)
      expect(names).toContain(`${server}__echo`)
      expect(toolText(await mcp.client.callTool({ name: `${server}__get-sum`, arguments: { a: 2, b: 3 } }))).toContain('5')
      const prompts = (await mcp.client.listPrompts()).prompts.map((p) => p.name)
      expect(prompts).toContain(`${server}__simple-prompt`)
      const resources = (await mcp.client.listResources()).resources
      const doc = resources.find((r) => r.uri.startsWith(`mcp-gateway://${server}/demo://resource/static/document/`))!
      const read = await mcp.client.readResource({ uri: doc.uri })
      expect(read.contents[0]!.uri).toBe(doc.uri)
      await mcp.close()
    })
  }
})

describe('restarts', () => {
  test('a stdio server that dies is restarted, and its tools stay listed and callable', async () => {
    const connection = gw.gateway.mcp.catalog.get('stdio')!.connection!
    const pid = connection.status().pid!
    expect(pid).toBeGreaterThan(0)
    process.kill(pid, 'SIGKILL')
    await eventually(
      () => connection.status(),
      (s) => s.state === 'ready' && s.pid !== pid && s.reconnects >= 1,
    )
    const mcp = await connectMcp(gw.url, MASTER)
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain('stdio__echo')
    expect(toolText(await mcp.client.callTool({ name: 'stdio__echo', arguments: { message: 'again' } }))).toBe('Echo: again')
    await mcp.close()
  }, 30_000)

  test('an HTTP server restarted with other tools: the list is the new one, never empty, never stale', async () => {
    const mcp = await connectMcp(gw.url, MASTER)
    let changed = 0
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    // Let the SDK open its GET stream for notifications.
    await Bun.sleep(200)
    const before = (await mcp.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('mock__'))
    expect(before.sort()).toEqual(['mock__alpha', 'mock__beta'])

    await mock.restart([{ name: 'alpha' }, { name: 'gamma' }])
    // The next call notices the forgotten session, reconnects and is sent again; the lists are fetched anew.
    expect(toolText(await mcp.client.callTool({ name: 'mock__alpha', arguments: { text: 'after' } }))).toBe('alpha: {"text":"after"}')
    const after = await eventually(
      async () => (await mcp.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('mock__')),
      (names) => names.includes('mock__gamma'),
    )
    expect(after.sort()).toEqual(['mock__alpha', 'mock__gamma'])
    await eventually(
      () => changed,
      (n) => n > 0,
    )
    await expect(mcp.client.callTool({ name: 'mock__beta', arguments: {} })).rejects.toThrow(/Unknown tool/)
    await mcp.close()
  }, 30_000)

  test('an HTTP server that restarts while nobody calls is noticed by the health check', async () => {
    await mock.restart([{ name: 'alpha' }, { name: 'delta' }])
    const mcp = await connectMcp(gw.url, MASTER)
    const names = await eventually(
      async () => (await mcp.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('mock__')),
      (n) => n.includes('mock__delta'),
    )
    expect(names.sort()).toEqual(['mock__alpha', 'mock__delta'])
    await mcp.close()
  }, 30_000)

  test('a server that changes its tools while running: list_changed reaches the gateway and its clients', async () => {
    const mcp = await connectMcp(gw.url, MASTER)
    let changed = 0
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    await Bun.sleep(200)
    await mock.setTools([{ name: 'alpha' }, { name: 'delta' }, { name: 'epsilon' }])
    await eventually(
      () => changed,
      (n) => n > 0,
    )
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain('mock__epsilon')
    await mcp.close()
  }, 30_000)
})

describe('supervision', () => {
  test('a stdio server that keeps dying is restarted with back-off (1 s, 2 s, …), not in a loop; the others are unaffected', async () => {
    await Bun.sleep(3500)
    const starts = existsSync(crashLog) ? readFileSync(crashLog, 'utf8').length : 0
    // Started with the gateway, then retried after 1 s, 2 s and 4 s (the gateway is up a few seconds by now): never a tight loop.
    expect(starts).toBeGreaterThanOrEqual(2)
    expect(starts).toBeLessThanOrEqual(5)
    const status = gw.gateway.mcp.catalog.status('crashing')!
    expect(status.state === 'down' || status.state === 'connecting').toBe(true)
    expect(status.last_error).toBeTruthy()
    const mcp = await connectMcp(gw.url, MASTER)
    expect((await mcp.client.listTools()).tools.some((t) => t.name.startsWith('crashing__'))).toBe(false)
    expect(toolText(await mcp.client.callTool({ name: 'stdio__echo', arguments: { message: 'still here' } }))).toBe('Echo: still here')
    await mcp.close()
  }, 30_000)

  test('stopping the gateway ends its stdio servers', async () => {
    const pid = gw.gateway.mcp.catalog.status('stdio')!.pid!
    expect(() => process.kill(pid, 0)).not.toThrow()
    stopped = true
    await gw.stop()
    const deadline = Date.now() + 10_000
    let alive = true
    while (alive && Date.now() < deadline) {
      try {
        process.kill(pid, 0)
        await Bun.sleep(50)
      } catch {
        alive = false
      }
    }
    expect(alive).toBe(false)
  }, 30_000)
})
