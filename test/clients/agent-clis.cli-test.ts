/**
 * The real agent CLIs against the gateway: `claude -p` (Claude Code) and `codex exec` (Codex CLI), installed
 * pinned from npm by scripts/test-clients.sh into its own folder (AGENT_CLIS_DIR), run non-interactively with
 * telemetry and update checks off and every non-loopback connection sent to a dead proxy. One gateway per
 * upstream family (OpenAI, Anthropic, Gemini, and Claude on Amazon Bedrock and on Google Vertex AI), each in front
 * of that family's mock upstream, whose `agent` model scripts one tool call and then answers with the tool's result
 * (test/helpers/scripted-agent.ts). The cloud mocks check their credentials as the clouds do (SigV4; a bearer
 * token from the mock Google token service, got with a service account key).
 *
 * Not a `*.test.ts` file on purpose: `bun test` alone does not run it; scripts/test-clients.sh does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic-upstream.ts'
import { type MockBedrock, startMockBedrock } from '../helpers/mock-bedrock-upstream.ts'
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini-upstream.ts'
import { type MockGoogleAuth, serviceAccountKey, startMockGoogleAuth } from '../helpers/mock-google-auth.ts'
import { type MockVertex, startMockVertex } from '../helpers/mock-vertex-upstream.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { AGENT_ANSWER_PREFIX, AGENT_MODEL } from '../helpers/scripted-agent.ts'

const CLIS_DIR = process.env.AGENT_CLIS_DIR ?? ''
/** What Claude Code 2.1.330 asks for when nothing chooses a model; a virtual model of that name catches it. */
const CLAUDE_CODE_DEFAULT_MODEL = process.env.CLAUDE_CODE_DEFAULT_MODEL ?? 'claude-opus-5-5'
/** A model Codex 0.169 has bundled settings for (tools in an `additional_tools` input item, code mode). */
const CODEX_KNOWN_MODEL = 'gpt-6.1-sol'
const MASTER = 'master-key-for-cli-tests-0123456789ab'
const RUN_TIMEOUT_MS = 90_000
const FAMILIES = ['openai', 'anthropic', 'gemini', 'bedrock', 'vertex'] as const
type Family = (typeof FAMILIES)[number]
const AWS_KEY = { id: 'AKIACLITESTS', secret: 'cli/tests/aws/secret' }

/** The scripted agent of each family: on the clouds, Claude (native Messages for Claude Code, translated for Codex). */
const AGENT_TARGETS: Record<Family, string> = {
  openai: `openai/${AGENT_MODEL}`,
  anthropic: `anthropic/${AGENT_MODEL}`,
  gemini: `gemini/${AGENT_MODEL}`,
  bedrock: `bedrock/us.anthropic.claude-${AGENT_MODEL}-v1:0`,
  vertex: `vertex/claude-${AGENT_MODEL}@20250101`,
}

interface Upstreams {
  openai: MockUpstream
  anthropic: MockAnthropic
  gemini: MockGemini
  bedrock: MockBedrock
  vertex: MockVertex
  google: MockGoogleAuth
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
function codex(family: Family, prompt: string, cwd: string, model = AGENT_TARGETS[family]): Promise<Run> {
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

/** Whether the upstream was asked for a stream (in the body, or by the method in the path on the clouds). */
function askedForStream(request: { path: string; body: any }): boolean {
  return request.body?.stream === true || /stream/i.test(request.path)
}

/** Fails with what the CLI printed, which is what one needs to see when a client breaks. */
function expectSuccess(result: Run, expected: string): void {
  if (result.exitCode !== 0 || !result.stdout.includes(expected)) {
    throw new Error(`exit ${result.exitCode}; expected "${expected}" in stdout\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`)
  }
}

beforeAll(async () => {
  if (!CLIS_DIR) throw new Error('AGENT_CLIS_DIR is not set: run scripts/test-clients.sh')
  const google = startMockGoogleAuth()
  const key = await serviceAccountKey(google.tokenUri)
  google.serviceAccount(key.file.client_email!, key.publicKey, key.file.private_key_id!)
  const keyFile = join(work, 'vertex-sa.json')
  writeFileSync(keyFile, JSON.stringify(key.file))
  mocks = {
    openai: startMockOpenAI(),
    anthropic: startMockAnthropic('sk-ant-test'),
    gemini: startMockGemini('gm-key'),
    bedrock: startMockBedrock({ region: 'us-west-2', service: 'bedrock', keys: { [AWS_KEY.id]: { secret: AWS_KEY.secret } } }),
    vertex: startMockVertex({ project: 'cli-tests', location: 'us-east5', accepts: google.accepts }),
    google,
  }
  for (const family of FAMILIES) {
    gateways[family] = await startGateway({
      GATEWAY_MASTER_KEY: MASTER,
      OPENAI_API_KEY: 'sk-openai-test',
      OPENAI_BASE_URL: mocks.openai.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: mocks.anthropic.url,
      GEMINI_API_KEY: 'gm-key',
      GEMINI_BASE_URL: mocks.gemini.url,
      BEDROCK_BASE_URL: mocks.bedrock.url,
      BEDROCK_MODELS: AGENT_TARGETS.bedrock.slice('bedrock/'.length),
      AWS_REGION: 'us-west-2',
      AWS_ACCESS_KEY_ID: AWS_KEY.id,
      AWS_SECRET_ACCESS_KEY: AWS_KEY.secret,
      VERTEX_BASE_URL: mocks.vertex.url,
      VERTEX_PROJECT: 'cli-tests',
      VERTEX_LOCATION: 'us-east5',
      VERTEX_MODELS: AGENT_TARGETS.vertex.slice('vertex/'.length),
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      // Claude Code's default name and a virtual model both lead to this gateway's family.
      VIRTUAL_MODELS: JSON.stringify([
        { source: CLAUDE_CODE_DEFAULT_MODEL, target: AGENT_TARGETS[family] },
        { source: 'cc-agent', target: AGENT_TARGETS[family] },
        // A name Codex has its own model settings for: it then sends its tools in an additional_tools item.
        { source: CODEX_KNOWN_MODEL, target: AGENT_TARGETS[family] },
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
  mocks?.bedrock.stop()
  mocks?.vertex.stop()
  mocks?.google.stop()
})

for (const family of FAMILIES) {
  describe(`claude -p → ${family}`, () => {
    test(
      'streaming: no model settings (its default model name, caught by a virtual model)',
      async () => {
        const before = upstreamOf(family).requests.length
        const result = await claude(family, `reply with PONG-claude-${family}`, workdir(`claude-text-${family}`, 'unused'))
        expectSuccess(result, `PONG-claude-${family}`)
        const sent = upstreamOf(family).requests.slice(before)
        expect(sent.some((r) => askedForStream(r) || family === 'gemini')).toBe(true)
      },
      RUN_TIMEOUT_MS + 10_000,
    )

    test(
      'tool use: no model settings; Read runs and its result comes back',
      async () => {
        const before = upstreamOf(family).requests.length
        const dir = workdir(`claude-tool-${family}`, `note-for-claude-${family}`)
        const result = await claude(family, `call tool Read {"file_path":"${join(dir, 'note.txt')}"}`, dir)
        expectSuccess(result, `note-for-claude-${family}`)
        expect(result.stdout).toContain(AGENT_ANSWER_PREFIX)
        // Claude on the clouds is reached natively: InvokeModel on Bedrock, rawPredict on Vertex AI.
        const paths = upstreamOf(family)
          .requests.slice(before)
          .map((r) => r.path)
        if (family === 'bedrock') expect(paths.length > 0 && paths.every((p) => /\/model\/[^/]+\/invoke(-with-response-stream)?$/.test(p))).toBe(true)
        if (family === 'vertex') expect(paths.length > 0 && paths.every((p) => /\/publishers\/anthropic\/models\/[^/]+:(stream)?[rR]awPredict$/.test(p))).toBe(true)
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
