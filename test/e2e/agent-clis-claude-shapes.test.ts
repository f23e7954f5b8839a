/**
 * Claude Code's own request shapes on `/v1/messages` and `/v1/messages/count_tokens` (captured from
 * `claude -p` 2.1.330): a `role: "system"` message inside `messages` after the first user turn, the
 * `anthropic-beta` flags for it, `?beta=true` on the path. Native Anthropic targets get the message and the header
 * as sent; every other target gets a chat `system` message at the same position. Refusals are worded the way
 * Anthropic words them, since Claude Code picks its fallback by matching that wording.
 */
import { describe, expect, test } from 'bun:test'
import { NATIVE_TOKEN_COUNT } from '../helpers/mock-anthropic-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const BETA = 'claude-code-20250219,mid-conversation-system-2026-04-07,interleaved-thinking-2025-05-14'

const t = useGatewaySuite({
  families: ['openai', 'anthropic', 'gemini'],
  env: { GEMINI_MODELS: 'gemini-2.5-flash', VIRTUAL_MODELS: JSON.stringify([{ source: 'cc-main', target: 'openai/gpt-4o' }]) },
})

/** The shape Claude Code sends: user turn, then a mid-conversation system message with the environment. */
function claudeCodeBody(model: string, extra: Record<string, unknown> = {}) {
  return {
    model,
    max_tokens: 32000,
    system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>attribution</system-reminder>' },
          { type: 'text', text: 'echo:hello' },
        ],
      },
      { role: 'system', content: [{ type: 'text', text: '# Environment\nPrimary working directory: /tmp' }] },
    ],
    metadata: { user_id: '{"session_id":"s1"}' },
    ...extra,
  }
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.gw.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': t.master, 'anthropic-version': '2023-06-01', 'anthropic-beta': BETA, ...headers },
    body: JSON.stringify(body),
  })
}

describe('role "system" inside messages', () => {
  test('Anthropic target: forwarded as sent, beta header included', async () => {
    const res = await post('/messages?beta=true', claudeCodeBody('anthropic/claude-sonnet-4-5'))
    expect(res.status).toBe(200)
    expect((await res.json()).type).toBe('message')
    const sent = t.anthropicMock.requests.at(-1)!
    expect(sent.headers['anthropic-beta']).toBe(BETA)
    expect(sent.body.model).toBe('claude-sonnet-4-5')
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'system'])
    expect(sent.body.messages[1]).toEqual(claudeCodeBody('x').messages[1])
  })

  test('Anthropic target: count_tokens forwarded as sent', async () => {
    const { max_tokens: _, ...body } = claudeCodeBody('anthropic/claude-sonnet-4-5')
    const res = await post('/messages/count_tokens?beta=true', body)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ input_tokens: NATIVE_TOKEN_COUNT })
    const sent = t.anthropicMock.requests.at(-1)!
    expect(sent.headers['anthropic-beta']).toBe(BETA)
    expect(sent.body.messages[1].role).toBe('system')
  })

  test('OpenAI target through a virtual model: a chat system message at its position, no beta header', async () => {
    const res = await post('/messages?beta=true', claudeCodeBody('cc-main'))
    expect(res.status).toBe(200)
    const message = await res.json()
    expect(message).toMatchObject({ type: 'message', role: 'assistant' })
    const sent = t.openaiMock.requests.at(-1)!
    expect(sent.headers['anthropic-beta']).toBeUndefined()
    expect(sent.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'system'])
    expect(sent.body.messages[2].content).toBe('# Environment\nPrimary working directory: /tmp')
    // Claude Code's max_tokens 32000 is more than gpt-4o answers (16,384): clamped instead of a 400.
    expect(sent.body.max_completion_tokens).toBe(16384)
  })

  test('OpenAI target, streamed', async () => {
    const res = await post('/messages', claudeCodeBody('openai/gpt-4o', { stream: true }))
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).toContain('event: message_stop')
    expect(t.openaiMock.requests.at(-1)!.body.messages[2]).toMatchObject({ role: 'system' })
  })

  test('Gemini target: the system text reaches the system instruction', async () => {
    const res = await post('/messages', claudeCodeBody('gemini/gemini-2.5-flash'))
    expect(res.status).toBe(200)
    const sent = t.geminiMock.requests.at(-1)!
    expect(JSON.stringify(sent.body.systemInstruction)).toContain('Primary working directory')
    expect(sent.body.contents.map((c: { role: string }) => c.role)).toEqual(['user'])
  })

  test('count_tokens on a translated target counts the system message too', async () => {
    const { max_tokens: _, ...body } = claudeCodeBody('cc-main')
    const without = { ...body, messages: body.messages.slice(0, 1) }
    const withSystem = (await (await post('/messages/count_tokens', body)).json()).input_tokens
    const withoutSystem = (await (await post('/messages/count_tokens', without)).json()).input_tokens
    expect(withSystem).toBeGreaterThan(withoutSystem)
  })
})

describe('refusals in Anthropic wording', () => {
  // The patterns Claude Code 2.1.330 matches to switch to its fallback without system messages (from its bundle).
  const claudeCodeRecognises = (message: string) =>
    /(?:unknown variant .{0,2}system\b.{0,2}, expected|Input should be) [\\'"`]{1,2}(?:user|assistant)\b.{0,2} or [\\'"`]{1,2}(?:user|assistant)\b/i.test(message) ||
    (message.includes('not supported') && /role .{0,2}system/i.test(message))

  test("Anthropic's own refusal of a system message reaches Claude Code as a 400 in words it recognises", async () => {
    const res = await post('/messages', claudeCodeBody('anthropic/no-mid-system'))
    expect(res.status).toBe(400)
    const err = await res.json()
    expect(err.error.type).toBe('invalid_request_error')
    expect(claudeCodeRecognises(err.error.message)).toBe(true)
    // Without the system message (Claude Code's retry) the same model answers.
    const body = claudeCodeBody('anthropic/no-mid-system')
    expect((await post('/messages', { ...body, messages: body.messages.slice(0, 1) })).status).toBe(200)
  })

  test('an unknown role names the accepted ones the way Anthropic does', async () => {
    const body = claudeCodeBody('cc-main')
    const res = await post('/messages', { ...body, messages: [body.messages[0], { role: 'tool', content: 'x' }] })
    expect(res.status).toBe(400)
    const err = await res.json()
    expect(err).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param: 'messages.1.role' } })
    expect(err.error.message).toBe("messages.1.role: Input should be 'user', 'assistant' or 'system'")
  })

  test('a system message a translated target cannot carry is refused in words Claude Code recognises', async () => {
    const body = claudeCodeBody('cc-main')
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } }
    const res = await post('/messages', { ...body, messages: [body.messages[0], { role: 'system', content: [image] }] })
    expect(res.status).toBe(400)
    const err = await res.json()
    expect(err.error.type).toBe('invalid_request_error')
    expect(claudeCodeRecognises(err.error.message)).toBe(true)
  })
})

describe('what API clients see besides /v1', () => {
  test('HEAD / and GET / from API clients answer 200 without a redirect; browsers are sent to the dashboard', async () => {
    const head = await fetch(`${t.gw.url}/`, { method: 'HEAD', redirect: 'manual' })
    expect(head.status).toBe(200)
    const api = await fetch(`${t.gw.url}/`, { headers: { accept: 'application/json' }, redirect: 'manual' })
    expect(api.status).toBe(200)
    expect(await api.json()).toMatchObject({ api: '/v1' })
    const any = await fetch(`${t.gw.url}/`, { headers: { accept: '*/*' }, redirect: 'manual' })
    expect(any.status).toBe(200)
    const browser = await fetch(`${t.gw.url}/`, { headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' }, redirect: 'manual' })
    expect(browser.status).toBe(302)
    expect(browser.headers.get('location')).toBe('/dashboard')
  })

  test('the 401 on /v1/messages names both ways to send the key', async () => {
    const res = await post('/messages', claudeCodeBody('cc-main'), { 'x-api-key': 'wrong' })
    expect(res.status).toBe(401)
    const err = await res.json()
    expect(err.error.type).toBe('authentication_error')
    expect(err.error.message).toContain('x-api-key')
    expect(err.error.message).toContain('Bearer')
  })

  test('model in answers: the upstream model id, never the virtual name (one rule, translated and native)', async () => {
    const translated = await (await post('/messages', claudeCodeBody('cc-main'))).json()
    expect(translated.model).toBe('gpt-4o')
    const streamed = await (await post('/messages', claudeCodeBody('cc-main', { stream: true }))).text()
    expect(streamed).toContain('"model":"gpt-4o"')
    expect(streamed).not.toContain('cc-main')
    const native = await (await post('/messages', claudeCodeBody('anthropic/claude-sonnet-4-5'))).json()
    expect(native.model).toBe('claude-sonnet-4-5')
  })
})
