/**
 * The servers the Python SDK tests talk to: OpenAI, Anthropic and Gemini mock upstreams and a real gateway in front
 * of them, all on port 0. Prints one JSON line (the gateway URL, the key, the texts each mock answers) and runs until
 * its standard input closes, so the pytest session that started it also ends it.
 */
import { startGatewayWithMocks } from '../helpers/gateway-suite.ts'
import { ANTHROPIC_TEXT } from '../helpers/mock-anthropic-upstream.ts'
import { GEMINI_TEXT } from '../helpers/mock-gemini-upstream.ts'
import { RESPONSES_TEXT, TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'

const MASTER = 'master-key-for-python-tests-0123456789'
// The mocks serve live calls, not the providers' batch APIs: batch lines are run by the gateway.
const servers = await startGatewayWithMocks({
  master: MASTER,
  families: ['openai', 'anthropic', 'gemini'],
  env: { BATCHES_GATEWAY_RUN_ALL: 'true', BATCHES_POLL_SECONDS: '1' },
})
const { gw } = servers

async function stop() {
  await servers.stop()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)

console.log(JSON.stringify({ url: gw.url, key: MASTER, texts: { chat: TRICKY_TEXT, responses: RESPONSES_TEXT, anthropic: ANTHROPIC_TEXT, gemini: GEMINI_TEXT } }))
for await (const _ of Bun.stdin.stream()) {
  // Nothing is read; the loop ends when the parent closes the pipe (or dies).
}
await stop()
