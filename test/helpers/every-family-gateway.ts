/**
 * @module A gateway in front of one mock upstream per provider family (OpenAI-compatible, Anthropic, Gemini), the
 * setup that the cross-family end-to-end suites share.
 */
import { startGateway, type RunningGateway } from './gateway.ts'
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic-upstream.ts'
import { startMockGemini, type MockGemini } from './mock-gemini-upstream.ts'
import { startMockOpenAI, type MockUpstream } from './mock-openai-upstream.ts'

export interface EveryFamilyGateway {
  gw: RunningGateway
  openaiMock: MockUpstream
  anthropicMock: MockAnthropic
  geminiMock: MockGemini
  /** Stops the gateway, then the mocks. */
  stop(): Promise<void>
}

/** Starts the three mocks and a gateway configured for all of them; `env` adds to or overrides its variables. */
export async function startEveryFamilyGateway(masterKey: string, env: Record<string, string> = {}): Promise<EveryFamilyGateway> {
  const openaiMock = startMockOpenAI()
  const anthropicMock = startMockAnthropic('sk-ant-test')
  const geminiMock = startMockGemini('gemini-test-key')
  const gw = await startGateway({
    GATEWAY_MASTER_KEY: masterKey,
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: openaiMock.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: anthropicMock.url,
    GEMINI_API_KEY: 'gemini-test-key',
    GEMINI_BASE_URL: geminiMock.url,
    ...env,
  })
  return {
    gw,
    openaiMock,
    anthropicMock,
    geminiMock,
    async stop() {
      await gw.stop()
      openaiMock.stop()
      anthropicMock.stop()
      geminiMock.stop()
    },
  }
}
