/**
 * The real agent CLIs against the gateway: `claude -p` (Claude Code) and `codex exec` (Codex CLI), installed
 * pinned from npm by scripts/test-clients.sh into its own folder (AGENT_CLIS_DIR), run non-interactively with
 * telemetry and update checks off and every non-loopback connection sent to a dead proxy. One gateway per
 * upstream family (OpenAI, Anthropic, Gemini), each in front of that family's mock upstream, whose `agent`
 * model scripts one tool call and then answers with the tool's result (test/helpers/scripted-agent.ts).
 *
 * Not a `*.test.ts` file on purpose: `bun test` alone does not run it; scripts/test-clients.sh does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic-upstream.ts'
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini-upstream.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { AGENT_ANSWER_PREFIX, AGENT_MODEL } from '../helpers/scripted-agent.ts'

const CLIS_DIR = process.env.AGENT_CLIS_DIR ?? ''
/** What Claude Code 2.1.330 asks for when nothing chooses a model; a virtual model of that name catches it. */
const CLAUDE_CODE_DEFAULT_MODEL = process.env.CLAUDE_CODE_DEFAULT_MODEL ?? 'claude-opus-5-5'
/** A model Codex 0.169 has bundled settings for (tools in an `additional_tools` input item, code mode). */
const CODEX_KNOWN_MODEL = 'gpt-6.1-sol'
const MASTER = 'master-key-for-cli-tests'
const RUN_TIMEOUT_MS = 90_000
const FAMILIES = ['openai', 'anthropic', 'gemini'] as const
type Family = (typeof FAMILIES)[number]

interface Upstreams {
  openai: MockUpstream
  anthropic: MockAnthropic
  gemini: MockGemini
}

let mocks: Upstreams
const gateways = {} as Record<Family, RunningGateway>
const work = mkdtempSync(join(tmpdir(), 'gw-agent-clis-'))

function claudeBinary(): string {
  const scope = join(CLIS_DIR, 'node_modules', '@anthropic-ai')
  const platform = readdirSync(scope).find((d) => d.startsWith('claude-code-') && existsSync(join(scope, d, 'claude')))
  if (!platform) throw new Error(`no Claude Code native binary under ${scope}`)
  return join(scope, platform, 'claude')
}

/** Environment shared by both CLIs: a throwaway home, no telemetry, and no way out but loopback. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    // Anything that is not loopback goes to a closed port and fails at once.
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    ALL_PROXY: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  }
}

interface Run {
  exitCode: number
  stdout: string
  stderr: string
}

async function run(cmd: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  const proc = Bun.spawn(cmd, { env, cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { exitCode, stdout, stderr }
}

function workdir(name: string, note: string): string {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'note.txt'), `${note}\n`)
  return dir
}

interface ClaudeOptions {
  /** ANTHROPIC_MODEL */
  model?: string
  /** `modelOverrides` in ~/.claude/settings.json */
  modelOverrides?: Record<string, string>
  /** The key as ANTHROPIC_AUTH_TOKEN (Authorization: Bearer) instead of ANTHROPIC_API_KEY (x-api-key). */
  bearer?: boolean
}

/** `claude -p`, configured only through its environment and, optionally, ~/.claude/settings.json. */
function claude(family: Family, prompt: string, cwd: string, options: ClaudeOptions = {}): Promise<Run> {
  const home = mkdtempSync(join(work, 'claude-home-'))
  if (options.modelOverrides) {
    mkdirSync(join(home, '.claude'))
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ modelOverrides: options.modelOverrides }))
  }
  const env = {
    ...baseEnv(home),
    ANTHROPIC_BASE_URL: gateways[family].url,
    ...(options.bearer ? { ANTHROPIC_AUTH_TOKEN: MASTER } : { ANTHROPIC_API_KEY: MASTER }),
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...(options.model ? { ANTHROPIC_MODEL: options.model } : {}),
  }
  return run([claudeBinary(), '-p', prompt, '--allowedTools', 'Read'], env, cwd)
}

/** `codex exec` through a custom model provider that points at the gateway's Responses API. */
function codex(family: Family, prompt: string, cwd: string, model = `${family}/${AGENT_MODEL}`): Promise<Run> {
  const home = mkdtempSync(join(work, 'codex-home-'))
  const codexHome = join(home, '.codex')
  mkdirSync(codexHome)
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "gateway"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[model_providers.gateway]',
      'name = "AI gateway"',
      `base_url = "${gateways[family].baseURL}"`,
      'env_key = "GATEWAY_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  )
  const env = { ...baseEnv(home), CODEX_HOME: codexHome, GATEWAY_API_KEY: MASTER }
  const cli = join(CLIS_DIR, 'node_modules', '@openai', 'codex', 'bin', 'codex.js')
  return run(['node', cli, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt], env, cwd)
}

function upstreamOf(family: Family): { requests: { path: string; body: any; headers: Record<string, string> }[] } {
  return mocks[family]
}

/** Fails with what the CLI printed, which is what one needs to see when a client breaks. */
function expectSuccess(result: Run, expected: string): void {
  if (result.exitCode !== 0 || !result.stdout.includes(expected)) {
    throw new Error(`exit ${result.exitCode}; expected "${expected}" in stdout\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`)
  }
}

beforeAll(async () => {
  if (!CLIS_DIR) throw new Error('AGENT_CLIS_DIR is not set: run scripts/test-clients.sh')
  mocks = { openai: startMockOpenAI(), anthropic: startMockAnthropic('sk-ant-test'), gemini: startMockGemini('gm-key') }
  for (const family of FAMILIES) {
    gateways[family] = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-openai-test',
      OPENAI_BASE_URL: mocks.openai.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: mocks.anthropic.url,
      GEMINI_API_KEY: 'gm-key',
      GEMINI_BASE_URL: mocks.gemini.url,
      // Claude Code's default name and a virtual model both lead to this gateway's family.
      VIRTUAL_MODELS: JSON.stringify([
        { source: CLAUDE_CODE_DEFAULT_MODEL, target: `${family}/${AGENT_MODEL}` },
        { source: 'cc-agent', target: `${family}/${AGENT_MODEL}` },
        // A name Codex has its own model settings for: it then sends its tools in an additional_tools item.
        { source: CODEX_KNOWN_MODEL, target: `${family}/${AGENT_MODEL}` },
        // The Anthropic mock's model that refuses mid-conversation system messages the way Anthropic does.
        ...(family === 'anthropic' ? [{ source: 'cc-no-mid-system', target: 'anthropic/no-mid-system' }] : []),
      ]),
    })
  }
}, 60_000)

afterAll(async () => {
  for (const gw of Object.values(gateways)) await gw.stop()
  mocks?.openai.stop()
  mocks?.anthropic.stop()
  mocks?.gemini.stop()
})

for (const family of FAMILIES) {
  describe(`claude -p → ${family}`, () => {
    test(
      'streaming: no model settings (its default model name, caught by a virtual model)',
      async () => {
        const before = upstreamOf(family).requests.length
        const result = await claude(family, `reply with PONG-claude-${family}`, workdir(`claude-text-${family}`, 'unused'))
        expectSuccess(result, `PONG-claude-${family}`)
        const sent = upstreamOf(family)
          .requests.slice(before)
          .map((r) => r.body)
        expect(sent.some((b) => b?.stream === true || family === 'gemini')).toBe(true)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      'tool use: no model settings; Read runs and its result comes back',
      async () => {
        const dir = workdir(`claude-tool-${family}`, `note-for-claude-${family}`)
        const result = await claude(family, `call tool Read {"file_path":"${join(dir, 'note.txt')}"}`, dir)
        expectSuccess(result, `note-for-claude-${family}`)
        expect(result.stdout).toContain(AGENT_ANSWER_PREFIX)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      'tool use: with a virtual model (ANTHROPIC_MODEL=cc-agent)',
      async () => {
        const dir = workdir(`claude-vm-${family}`, `vm-note-${family}`)
        const result = await claude(family, `call tool Read {"file_path":"${join(dir, 'note.txt')}"}`, dir, { model: 'cc-agent' })
        expectSuccess(result, `vm-note-${family}`)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      'streaming: modelOverrides in settings.json, key sent as a bearer token (ANTHROPIC_AUTH_TOKEN)',
      async () => {
        const before = upstreamOf(family).requests.length
        const result = await claude(family, `reply with OVERRIDE-${family}`, workdir(`claude-override-${family}`, 'unused'), {
          modelOverrides: { [CLAUDE_CODE_DEFAULT_MODEL]: 'cc-agent' },
          bearer: true,
        })
        expectSuccess(result, `OVERRIDE-${family}`)
        expect(upstreamOf(family).requests.length).toBeGreaterThan(before)
      },
      RUN_TIMEOUT_MS + 10_000,
    )
  })

  if (family === 'anthropic') {
    test(
      "claude -p → anthropic > a model that refuses mid-conversation system messages: Claude Code's fallback retries without them",
      async () => {
        const before = mocks.anthropic.requests.length
        const result = await claude(family, 'say hello', workdir('claude-no-mid-system', 'unused'), { model: 'cc-no-mid-system' })
        expectSuccess(result, ANTHROPIC_TEXT)
        const roles = mocks.anthropic.requests.slice(before).map((r) => (r.body?.messages ?? []).map((m: { role: string }) => m.role).join(','))
        expect(roles[0]).toContain('system')
        expect(roles.at(-1)).not.toContain('system')
      },
      RUN_TIMEOUT_MS + 10_000,
    )
  }

  describe(`codex exec → ${family}`, () => {
    test(
      'streaming: a plain answer',
      async () => {
        const result = await codex(family, `reply with PONG-codex-${family}`, workdir(`codex-text-${family}`, 'unused'))
        expectSuccess(result, `PONG-codex-${family}`)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      'tool use with its default tools: exec_command runs and its output comes back',
      async () => {
        const dir = workdir(`codex-tool-${family}`, `note-for-codex-${family}`)
        const result = await codex(family, 'call tool exec_command {"cmd":"cat note.txt"}', dir)
        expectSuccess(result, `note-for-codex-${family}`)
        expect(result.stdout).toContain(AGENT_ANSWER_PREFIX)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      `streaming: a model name Codex knows (${CODEX_KNOWN_MODEL}, a virtual model): its additional_tools item is accepted`,
      async () => {
        const before = upstreamOf(family).requests.length
        const result = await codex(family, `reply with KNOWN-${family}`, workdir(`codex-known-${family}`, 'unused'), CODEX_KNOWN_MODEL)
        expectSuccess(result, `KNOWN-${family}`)
        if (family === 'openai')
          expect(
            upstreamOf(family)
              .requests.slice(before)
              .some((r) => JSON.stringify(r.body?.input ?? '').includes('additional_tools')),
          ).toBe(true)
      },
      RUN_TIMEOUT_MS + 10_000,
    )
  })
}
