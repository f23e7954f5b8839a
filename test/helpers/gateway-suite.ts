/**
 * @module The setup most end-to-end suites share: mock upstreams for the provider families a suite needs, a real
 * gateway in front of them, the official SDK clients and the audit client, all stopped after the suite.
 */
import { afterAll, beforeAll } from 'bun:test'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { type AuditAdmin, auditAdmin } from './audit-admin.ts'
import { type RunningGateway, startGateway, writeGatewayYaml } from './gateway.ts'
import { type MockAnthropic, startMockAnthropic } from './mock-anthropic-upstream.ts'
import { type MockGemini, startMockGemini } from './mock-gemini-upstream.ts'
import { type MockOptions, type MockUpstream, startMockOpenAI } from './mock-openai-upstream.ts'

export type Family = 'openai' | 'anthropic' | 'gemini'

/** The upstream key each family's mock accepts; the gateway is given the same one. */
export const UPSTREAM_KEYS: Record<Family, string> = { openai: 'sk-openai-test', anthropic: 'sk-ant-test', gemini: 'gemini-test-key' }

export interface MockUrls {
  openai: string
  anthropic: string
  gemini: string
}

export interface GatewayWithMocksOptions {
  /** The gateway's master key; default `master-key-for-tests-0123456789abcdef`. */
  master?: string
  /** Families whose mock is started; default just `openai`. */
  families?: Family[]
  /** Whether each started family is also configured by its environment variables (key, base URL); default true. */
  providersFromEnv?: boolean
  /** A gateway.yaml, written to a temporary file and passed as GATEWAY_CONFIG; given the mocks' URLs. */
  yaml?: (urls: MockUrls) => string
  /** Options for the OpenAI mock (e.g. the upstream key it demands). */
  openaiMockOptions?: MockOptions
  /** What `startGateway` takes besides the environment (e.g. a cost model). */
  gatewayOptions?: Parameters<typeof startGateway>[1]
  /** More gateway variables (or a function of the mocks' URLs giving them); they override the provider ones. */
  env?: Record<string, string> | ((urls: MockUrls) => Record<string, string>)
}

export interface GatewayWithMocks {
  master: string
  gw: RunningGateway
  openaiMock: MockUpstream
  anthropicMock: MockAnthropic
  geminiMock: MockGemini
  /** Stops the gateway, then the mocks. */
  stop(): Promise<void>
}

const PROVIDER_ENV: Record<Family, (url: string) => Record<string, string>> = {
  openai: (url) => ({ OPENAI_API_KEY: UPSTREAM_KEYS.openai, OPENAI_BASE_URL: url }),
  anthropic: (url) => ({ ANTHROPIC_API_KEY: UPSTREAM_KEYS.anthropic, ANTHROPIC_BASE_URL: url }),
  gemini: (url) => ({ GEMINI_API_KEY: UPSTREAM_KEYS.gemini, GEMINI_BASE_URL: url }),
}

/** Starts the mocks and a gateway in front of them; the caller stops them. */
export async function startGatewayWithMocks(options: GatewayWithMocksOptions = {}): Promise<GatewayWithMocks> {
  const master = options.master ?? 'master-key-for-tests-0123456789abcdef'
  const families = options.families ?? ['openai']
  const openaiMock = families.includes('openai') ? startMockOpenAI(options.openaiMockOptions) : undefined
  const anthropicMock = families.includes('anthropic') ? startMockAnthropic(UPSTREAM_KEYS.anthropic) : undefined
  const geminiMock = families.includes('gemini') ? startMockGemini(UPSTREAM_KEYS.gemini) : undefined
  const urls: MockUrls = { openai: openaiMock?.url ?? '', anthropic: anthropicMock?.url ?? '', gemini: geminiMock?.url ?? '' }
  const env: Record<string, string> = { GATEWAY_MASTER_KEY: master }
  if (options.providersFromEnv ?? true) for (const family of families) Object.assign(env, PROVIDER_ENV[family](urls[family]))
  if (options.yaml) env.GATEWAY_CONFIG = writeGatewayYaml(options.yaml(urls))
  const gw = await startGateway({ ...env, ...(typeof options.env === 'function' ? options.env(urls) : options.env) }, options.gatewayOptions)
  // A mock the suite did not start reads as undefined: the test that uses it fails at once.
  return {
    master,
    gw,
    openaiMock: openaiMock as MockUpstream,
    anthropicMock: anthropicMock as MockAnthropic,
    geminiMock: geminiMock as MockGemini,
    async stop() {
      await gw.stop()
      openaiMock?.stop()
      anthropicMock?.stop()
      geminiMock?.stop()
    },
  }
}

/** What a suite's tests read once `beforeAll` has run (its fields are undefined before). */
export interface GatewaySuite extends Omit<GatewayWithMocks, 'stop'> {
  /** The official OpenAI SDK on the gateway's /v1, no retries. */
  openai: OpenAI
  /** The official Anthropic SDK on the gateway (the SDK adds /v1/messages itself), no retries. */
  claude: Anthropic
  audit: AuditAdmin
}

/**
 * Registers the suite's `beforeAll` (start; seconds on a busy machine, the gateway loads its tokenizer) and
 * `afterAll` (stop) and returns the handle its tests read.
 */
export function useGatewaySuite(options: GatewayWithMocksOptions = {}): GatewaySuite {
  const suite = {} as GatewaySuite & { stop(): Promise<void> }
  beforeAll(async () => {
    const running = await startGatewayWithMocks(options)
    Object.assign(suite, running, {
      openai: new OpenAI({ apiKey: running.master, baseURL: running.gw.baseURL, maxRetries: 0 }),
      claude: new Anthropic({ apiKey: running.master, baseURL: running.gw.url, maxRetries: 0 }),
      audit: auditAdmin(running.gw.url, running.master),
    })
  }, 30_000)
  afterAll(() => suite.stop?.())
  return suite
}
