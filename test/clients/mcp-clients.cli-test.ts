/**
 * Real MCP clients against the gateway's MCP endpoint: the MCP Inspector's CLI mode, and the real Claude Code and
 * Codex CLIs configured with the gateway as their MCP server, calling a tool the scripted mock model asks for
 * (test/helpers/scripted-agent.ts) on server-everything (stdio, behind the gateway), the call then found in the
 * audit log. Installed pinned by scripts/test-clients.sh (AGENT_CLIS_DIR, MCP_INSPECTOR_DIR); every non-loopback
 * connection goes to a dead proxy.
 *
 * Not a `*.test.ts` file on purpose: `bun test` alone does not run it; scripts/test-clients.sh does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { auditAdmin, type AuditAdmin } from '../helpers/audit-admin.ts'
import { everythingStdio } from '../helpers/everything-server.ts'
import { startGateway, writeGatewayYaml, type RunningGateway } from '../helpers/gateway.ts'
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic-upstream.ts'
import { AGENT_ANSWER_PREFIX, AGENT_MODEL } from '../helpers/scripted-agent.ts'

const CLIS_DIR = process.env.AGENT_CLIS_DIR ?? ''
const INSPECTOR_DIR = process.env.MCP_INSPECTOR_DIR ?? ''
const MASTER = 'master-key-for-mcp-client-tests-0123456789'
const RUN_TIMEOUT_MS = 90_000

let anthropic: MockAnthropic
let gw: RunningGateway
let audit: AuditAdmin
let agentKey: { key: string; id: string }
const work = mkdtempSync(join(tmpdir(), 'gw-mcp-clients-'))

interface Run {
  exitCode: number
  stdout: string
  stderr: string
}

function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    ALL_PROXY: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  }
}

async function run(cmd: string[], env: Record<string, string>, cwd = work): Promise<Run> {
  const proc = Bun.spawn(cmd, { env, cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { exitCode, stdout, stderr }
}

function expectSuccess(result: Run, expected: string): void {
  if (result.exitCode !== 0 || !result.stdout.includes(expected)) {
    throw new Error(`exit ${result.exitCode}; expected "${expected}" in stdout\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`)
  }
}

function inspector(args: string[]): Promise<Run> {
  const launcher = join(INSPECTOR_DIR, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')
  const home = mkdtempSync(join(work, 'inspector-home-'))
  // Without the dead proxy: the Inspector cannot load its proxy support in CLI mode, and it calls only the URL given.
  return run(['node', launcher, '--cli', ...args], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'dumb', LANG: 'C.UTF-8' })
}

function claudeBinary(): string {
  const scope = join(CLIS_DIR, 'node_modules', '@anthropic-ai')
  const platform = readdirSync(scope).find((d) => d.startsWith('claude-code-') && existsSync(join(scope, d, 'claude')))
  if (!platform) throw new Error(`no Claude Code native binary under ${scope}`)
  return join(scope, platform, 'claude')
}

/** A tool call the scripted model makes, and whose audit entry the test finds afterwards. */
async function toolCallAudited(since: number, message: string) {
  const page = await audit.eventually(
    () => audit.list({ method: 'tools/call', provider: 'everything' }),
    (p) => p.entries.some((e) => Date.parse(e.timestamp) >= since),
    10_000,
  )
  const entries = await Promise.all(page.entries.filter((e) => Date.parse(e.timestamp) >= since).map((e) => audit.detail(e.id)))
  const entry = entries.find((e) => JSON.stringify(e.data.request_body).includes(message))
  if (!entry) throw new Error(`no tools/call entry with ${message} since ${new Date(since).toISOString()}`)
  return entry
}

beforeAll(async () => {
  if (!CLIS_DIR || !INSPECTOR_DIR) throw new Error('AGENT_CLIS_DIR or MCP_INSPECTOR_DIR is not set: run scripts/test-clients.sh')
  anthropic = startMockAnthropic('sk-ant-test')
  const { command, args } = everythingStdio()
  gw = await startGateway({
    GATEWAY_MASTER_KEY: MASTER,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: anthropic.url,
    LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5',
    VIRTUAL_MODELS: JSON.stringify([{ source: 'cc-agent', target: `anthropic/${AGENT_MODEL}` }]),
    GATEWAY_CONFIG: writeGatewayYaml(`
mcp:
  servers:
    everything:
      command: ${JSON.stringify(command)}
      args: ${JSON.stringify(args)}
`),
  })
  await gw.gateway.mcp.catalog.settled()
  audit = auditAdmin(gw.url, MASTER)
  const res = await fetch(`${gw.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'agent', user_path: '/agents/cli' }),
  })
  agentKey = (await res.json()) as { key: string; id: string }
}, 60_000)

afterAll(async () => {
  await gw?.stop()
  anthropic?.stop()
})

describe('MCP Inspector, CLI mode', () => {
  const auth = () => ['--header', `Authorization: Bearer ${agentKey.key}`]

  test(
    'tools/list on /mcp: every tool under <server>__<tool>',
    async () => {
      const result = await inspector([`${gw.url}/mcp`, '--transport', 'http', ...auth(), '--method', 'tools/list'])
      expectSuccess(result, 'everything__echo')
      expect(result.stdout).toContain('everything__get-sum')
    },
    RUN_TIMEOUT_MS + 10_000,
  )

  test(
    'tools/call on /mcp/{server}, the call in the audit log',
    async () => {
      const since = Date.now()
      const result = await inspector([
        `${gw.url}/mcp/everything`,
        '--transport',
        'http',
        ...auth(),
        '--method',
        'tools/call',
        '--tool-name',
        'echo',
        '--tool-arg',
        'message=from-the-inspector',
      ])
      expectSuccess(result, 'Echo: from-the-inspector')
      const entry = await toolCallAudited(since, 'from-the-inspector')
      expect(entry).toMatchObject({ path: '/mcp/everything', requested_model: 'echo', auth_key_id: agentKey.id, user_path: '/agents/cli' })
    },
    RUN_TIMEOUT_MS + 10_000,
  )

  test(
    'resources and prompts through the aggregated endpoint',
    async () => {
      const resources = await inspector([`${gw.url}/mcp`, '--transport', 'http', ...auth(), '--method', 'resources/list'])
      expectSuccess(resources, 'mcp-gateway://everything/demo://resource/static/document/')
      const prompt = await inspector([`${gw.url}/mcp`, '--transport', 'http', ...auth(), '--method', 'prompts/get', '--prompt-name', 'everything__simple-prompt'])
      expectSuccess(prompt, 'simple prompt')
    },
    RUN_TIMEOUT_MS + 10_000,
  )

  test(
    'a wrong key: refused, nothing listed',
    async () => {
      const result = await inspector([`${gw.url}/mcp`, '--transport', 'http', '--header', 'Authorization: Bearer not-a-key', '--method', 'tools/list'])
      expect(result.exitCode).not.toBe(0)
      expect(result.stdout).not.toContain('everything__echo')
    },
    RUN_TIMEOUT_MS + 10_000,
  )
})

describe('agent CLIs with the gateway as their MCP server', () => {
  test(
    'claude -p: the scripted model calls everything__echo through the gateway; the call is audited',
    async () => {
      const home = mkdtempSync(join(work, 'claude-home-'))
      const mcpConfig = JSON.stringify({ mcpServers: { gw: { type: 'http', url: `${gw.url}/mcp`, headers: { Authorization: `Bearer ${agentKey.key}` } } } })
      const env = {
        ...baseEnv(home),
        ANTHROPIC_BASE_URL: gw.url,
        ANTHROPIC_API_KEY: agentKey.key,
        ANTHROPIC_MODEL: 'cc-agent',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // MCP tools in the first request's tool list (not behind its tool search), so the scripted model sees them.
        ENABLE_TOOL_SEARCH: 'false',
      }
      const since = Date.now()
      const result = await run(
        [
          claudeBinary(),
          '-p',
          'call tool everything__echo {"message":"hello-from-claude-code"}',
          '--mcp-config',
          mcpConfig,
          '--strict-mcp-config',
          '--allowedTools',
          'mcp__gw__everything__echo',
        ],
        env,
      )
      expectSuccess(result, `${AGENT_ANSWER_PREFIX}Echo: hello-from-claude-code`)
      const entry = await toolCallAudited(since, 'hello-from-claude-code')
      expect(entry).toMatchObject({ method: 'tools/call', path: '/mcp', requested_model: 'everything__echo', auth_key_id: agentKey.id, status_code: 200 })
      // Linked to the model request whose answer asked for it: Claude Code names the model's tool_use id.
      expect(entry.data.mcp?.tool_call_id).toMatch(/^toolu_/)
    },
    RUN_TIMEOUT_MS + 10_000,
  )

  test(
    'codex exec: the scripted model calls everything__echo through the gateway; the call is audited',
    async () => {
      const home = mkdtempSync(join(work, 'codex-home-'))
      const codexHome = join(home, '.codex')
      mkdirSync(codexHome)
      writeFileSync(
        join(codexHome, 'config.toml'),
        [
          // Codex sends MCP tools in a Responses API namespace (`mcp__gw__`), which the gateway flattens to mcp__gw__everything__echo for the Anthropic mock; the OpenAI mock reads flat tools only.
          'model = "cc-agent"',
          'model_provider = "gateway"',
          'check_for_update_on_startup = false',
          '[analytics]',
          'enabled = false',
          '[model_providers.gateway]',
          'name = "AI gateway"',
          `base_url = "${gw.baseURL}"`,
          'env_key = "GATEWAY_API_KEY"',
          'wire_api = "responses"',
          '[mcp_servers.gw]',
          `url = "${gw.url}/mcp"`,
          'bearer_token_env_var = "GATEWAY_API_KEY"',
          '',
        ].join('\n'),
      )
      const env = { ...baseEnv(home), CODEX_HOME: codexHome, GATEWAY_API_KEY: agentKey.key }
      const cli = join(CLIS_DIR, 'node_modules', '@openai', 'codex', 'bin', 'codex.js')
      const since = Date.now()
      const result = await run(
        ['node', cli, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'call tool everything__echo {"message":"hello-from-codex"}'],
        env,
      )
      expectSuccess(result, `${AGENT_ANSWER_PREFIX}`)
      expect(result.stdout).toContain('hello-from-codex')
      const entry = await toolCallAudited(since, 'hello-from-codex')
      expect(entry).toMatchObject({ method: 'tools/call', path: '/mcp', requested_model: 'everything__echo', auth_key_id: agentKey.id, status_code: 200 })
      // Linked to the model requests of the same agent session: Codex names its session in _meta.
      const model = (await audit.list({ path: '/v1/responses' })).entries.filter((e) => Date.parse(e.timestamp) >= since)
      console.log(
        'CODEX SESSIONS',
        entry.session_id,
        model.map((e) => e.session_id),
      )
      expect(model.map((e) => e.session_id)).toContain(entry.session_id)
      expect(entry.data.mcp?.tool_call_id).toBeTruthy()
    },
    RUN_TIMEOUT_MS + 10_000,
  )
})
