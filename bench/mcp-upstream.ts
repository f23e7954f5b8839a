/**
 * @module The MCP servers of bench/mcp.ts, in a process of their own: `--servers N` servers (the official SDK's
 * McpServer over Streamable HTTP, as test/helpers/mock-mcp-server.ts makes them) with `--tools M` tools each, whose
 * descriptions and input schemas are the size of real ones; every tool answers at once. Prints one JSON line with
 * the servers' URLs, then runs until SIGTERM.
 */
import { parseArgs } from 'node:util'
import { startMockMcpServer, type MockTool } from '../test/helpers/mock-mcp-server.ts'

const { values } = parseArgs({ options: { servers: { type: 'string', default: '1' }, tools: { type: 'string', default: '1' } } })
const servers = Math.min(50, Number(values.servers))
const tools = Math.min(500, Number(values.tools))

const toolSet = (n: number): MockTool[] =>
  Array.from({ length: n }, (_, i) => ({
    name: i === 0 ? 'echo' : `operation_${String(i).padStart(3, '0')}`,
    description: `Performs operation ${i} on the records of the system of record: filters by the given text, limits the result to n items and returns them as JSON. Use it when the user asks about operation ${i}.`,
    answer: (args) => `ok ${String(args.text ?? '')}`,
  }))

const started = await Promise.all(Array.from({ length: servers }, () => startMockMcpServer({ tools: toolSet(tools), keepRecords: false })))
console.log(JSON.stringify({ urls: started.map((s) => s.url) }))
const stop = async () => {
  await Promise.all(started.map((s) => s.stop()))
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
