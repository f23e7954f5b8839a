/**
 * Streams that do not break: client disconnects reach the upstream, first-byte and idle deadlines are separate,
 * quiet streams get keep-alive comments and are not cut by the server's idle timeout.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { startGateway, type RunningGateway } from '../helpers/gateway.ts'
import { startMockOpenAI, type MockUpstream } from '../helpers/mock-openai-upstream.ts'
import { streamError } from '../helpers/sse-events.ts'

const MASTER = 'master-key-for-tests-0123456789abcdef'
const messages = [{ role: 'user' as const, content: 'hi' }]
let mock: MockUpstream

beforeAll(() => {
  mock = startMockOpenAI()
})
afterAll(() => mock.stop())

async function withGateway(env: Record<string, string>, run: (gw: RunningGateway, client: OpenAI) => Promise<void>) {
  const gw = await startGateway({ GATEWAY_MASTER_KEY: MASTER, OPENAI_API_KEY: 'sk-up', OPENAI_BASE_URL: mock.url, ...env })
  try {
    await run(gw, new OpenAI({ apiKey: MASTER, baseURL: gw.baseURL, maxRetries: 0 }))
  } finally {
    await gw.stop()
  }
}

function post(gw: RunningGateway, body: unknown, signal?: AbortSignal) {
  return fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
}

describe('streaming', () => {
  test('a client that goes away cancels the upstream request', async () => {
    await withGateway({}, async (gw) => {
      const before = mock.cancelledStreams
      const abort = new AbortController()
      const res = await post(gw, { model: 'openai/slow-stream', messages, stream: true, metadata: { delay_ms: 100 } }, abort.signal)
      const reader = res.body!.getReader()
      await reader.read()
      abort.abort()
      for (let i = 0; i < 50 && mock.cancelledStreams === before; i++) await Bun.sleep(20)
      expect(mock.cancelledStreams).toBe(before + 1)
    })
  })

  test('idle deadline between chunks ends the stream with an error frame', async () => {
    await withGateway({ UPSTREAM_IDLE_TIMEOUT_MS: '150' }, async (gw, client) => {
      const stream = await client.chat.completions.create({ model: 'openai/pause-stream', messages, stream: true, metadata: { pause_ms: '600' } })
      const err = await streamError(stream)
      expect(err).toBeInstanceOf(OpenAI.APIError)
      expect(String(err.message)).toContain('timed out')
    })
  })

  test('first-byte deadline is separate from the idle deadline', async () => {
    await withGateway({ UPSTREAM_TTFB_TIMEOUT_MS: '2000', UPSTREAM_IDLE_TIMEOUT_MS: '100' }, async (_gw, client) => {
      // 300 ms before the first byte is fine: only the first-byte deadline applies until then.
      const slow = await client.chat.completions.create({ model: 'openai/slow-first-byte', messages, metadata: { delay_ms: '300' } })
      expect(slow.choices[0]!.message.content).toBe('late')
    })
    await withGateway({ UPSTREAM_TTFB_TIMEOUT_MS: '100' }, async (_gw, client) => {
      const err = await client.chat.completions.create({ model: 'openai/slow-first-byte', messages, metadata: { delay_ms: '400' } }).catch((e) => e)
      expect(err.status).toBe(504)
      expect(err.error).toMatchObject({ code: 'upstream_timeout', provider: 'openai' })
    })
  })

  test('quiet streams get SSE keep-alive comments and survive the server idle timeout', async () => {
    await withGateway({ SSE_KEEPALIVE_SECONDS: '1', GATEWAY_IDLE_TIMEOUT_SECONDS: '1' }, async (gw) => {
      const res = await post(gw, { model: 'openai/pause-stream', messages, stream: true, metadata: { pause_ms: 2500 } })
      const raw = await res.text()
      expect(raw).toContain(': keep-alive\n\n')
      expect(raw).toEndWith('data: [DONE]\n\n')
      expect(raw).toContain('"content":"a"')
    })
  })

  test('a quiet stream without keep-alives is not cut by the server idle timeout either', async () => {
    await withGateway({ SSE_KEEPALIVE_SECONDS: '60', GATEWAY_IDLE_TIMEOUT_SECONDS: '1' }, async (gw) => {
      const res = await post(gw, { model: 'openai/pause-stream', messages, stream: true, metadata: { pause_ms: 4500 } })
      const raw = await res.text()
      expect(raw).not.toContain('keep-alive')
      expect(raw).toEndWith('data: [DONE]\n\n')
    })
    // The pause alone is 4.5 s: the default 5 s leaves no room on a loaded machine.
  }, 15_000)

  test('an error event inside the upstream stream reaches the client as an APIError', async () => {
    await withGateway({}, async (_gw, client) => {
      const stream = await client.chat.completions.create({ model: 'openai/stream-error-event', messages, stream: true })
      const err = await streamError(stream)
      expect(err).toBeInstanceOf(OpenAI.APIError)
      expect(String(err.message)).toContain('server had an error')
    })
  })
})
