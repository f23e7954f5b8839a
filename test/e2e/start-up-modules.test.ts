/**
 * What a gateway loads to start and to serve a chat completion (docs/workers.md, "Memory per process"): every
 * package (or module of zod schemas) below costs megabytes resident per process and is loaded only when its
 * feature is used, so a gateway with the defaults must never hold it. A static import added anywhere on the start-up path fails this test.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnGateway, type GatewayProcess } from '../helpers/gateway-process.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { tempDirs } from '../helpers/temp-dirs.ts'

const LOADED_ON_DEMAND = [
  '@modelcontextprotocol/sdk', // upstream MCP servers (mcp_servers, or one registered at /admin/mcp)
  '@opentelemetry/sdk-trace', // tracing (OTEL_*)
  '@aws-sdk/', // Bedrock's credentials
  '@smithy/', // Bedrock's signing and event streams
  'pino-pretty', // LOG_FORMAT=pretty
  'node_modules/yaml/', // a config file
  'gpt-tokenizer', // the first token count, on its own thread
  'node_modules/postgres/', // DATABASE_URL
  'node_modules/jose/', // identity-token issuers (auth.jwt) or dashboard SSO (auth.oidc)
  'src/audit/schemas.ts', // the audit API's answers, for the OpenAPI document only (src/http/doc-schemas.ts)
  'src/protocols/response-schemas.ts', // the /v1 success bodies, for the OpenAPI document only
]

const dirs = tempDirs('gw-modules-')
let mock: MockUpstream
let gateway: GatewayProcess
let outFile = ''

beforeAll(async () => {
  mock = startMockOpenAI()
  outFile = join(dirs(), 'modules.txt')
  gateway = await spawnGateway(
    { GATEWAY_MASTER_KEY: 'modules-master-key-0123456789abcdef', OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: mock.url, LOADED_MODULES_OUT: outFile },
    undefined,
    { command: ['bun', '--preload', './test/fixtures/loaded-modules-on-signal.ts', 'src/main.ts'] },
  )
}, 30_000)

afterAll(async () => {
  await gateway?.stop()
  mock?.stop()
})

async function loadedModules(): Promise<string[]> {
  gateway.proc.kill('SIGUSR2')
  for (let i = 0; i < 100 && !existsSync(outFile); i++) await Bun.sleep(20)
  return readFileSync(outFile, 'utf8').split('\n')
}

test('serving a chat completion with the defaults loads none of the packages kept for features in use', async () => {
  const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer modules-master-key-0123456789abcdef', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'echo:hi' }] }),
  })
  expect(answer.status).toBe(200)
  const modules = await loadedModules()
  // The hook works: the request path itself is listed.
  expect(modules.some((path) => path.endsWith('src/pipeline/run.ts'))).toBe(true)
  expect(LOADED_ON_DEMAND.filter((name) => modules.some((path) => path.includes(name)))).toEqual([])
})
