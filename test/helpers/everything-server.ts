/**
 * @module `@modelcontextprotocol/server-everything` (the MCP project's reference server, a devDependency) as a test
 * upstream: its stdio command for `mcp.servers.<name>.command`, or started over Streamable HTTP or the older
 * HTTP+SSE on a free loopback port.
 */
import { join } from 'node:path'

export const EVERYTHING_ENTRY = join(import.meta.dir, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')

/** `command` and `args` of a stdio server running it (under Bun, as the gateway is). */
export const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] })

export interface EverythingHttp {
  url: string
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/** `transport`: `streamableHttp` (served at /mcp) or `sse` (at /sse). */
export async function startEverythingHttp(transport: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<EverythingHttp> {
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, EVERYTHING_ENTRY, transport], { env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdout: 'ignore', stderr: 'pipe' })
  const url = `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`
  const deadline = Date.now() + 20_000
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill()
      throw new Error(`server-everything (${transport}) did not start on port ${port}: ${await new Response(proc.stderr).text()}`)
    }
    await Bun.sleep(50)
  }
  return {
    url,
    async stop() {
      proc.kill()
      await proc.exited
    },
  }
}
