/**
 * The servers the Python SDK tests talk to: OpenAI, Anthropic and Gemini mock upstreams and a real gateway in front
 * of them, all on port 0. Prints one JSON line (the gateway URL, the key, the texts each mock answers) and runs until
 * its standard input closes, so the pytest session that started it also ends it.
 */
import { startGateway } from '../helpers/gateway.ts'
import { ANTHROPIC_TEXT, startMockAnthropic } from '../helpers/mock-anthropic-upstream.ts'
import { GEMINI_TEXT, startMockGemini } from '../helpers/mock-gemini-upstream.ts'
import { RESPONSES_TEXT, startMockOpenAI, TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-python-tests'
const openaiMock = startMockOpenAI()
const anthropicMock = startMockAnthropic('sk-ant-test')
const geminiMock = startMockGemini('gemini-test-key')
const gw = await startGateway({
  GATEWAY_MASTER_KEY: MASTER,
  OPENAI_API_KEY: 'sk-openai-test',
  OPENAI_BASE_URL: openaiMock.url,
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: anthropicMock.url,
  GEMINI_API_KEY: 'gemini-test-key',
  GEMINI_BASE_URL: geminiMock.url,
})

async function stop() {
  await gw.stop()
  openaiMock.stop()
  anthropicMock.stop()
  geminiMock.stop()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

console.log(JSON.stringify({ url: gw.url, key: MASTER, texts: { chat: TRICKY_TEXT, responses: RESPONSES_TEXT, anthropic: ANTHROPIC_TEXT, gemini: GEMINI_TEXT } }))
for await (const _ of Bun.stdin.stream()) {
  // Nothing is read; the loop ends when the parent closes the pipe (or dies).
}
await stop()
