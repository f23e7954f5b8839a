/**
 * Output limits are clamped per attempt (issue 33, item 9). The parameter normaliser clamped `max_tokens` and its
 * kin for the primary target only, so a failover to a model with a lower limit got the primary's value and failed
 * upstream. Each attempt now gets the body the normaliser would have made for its own target, and the revision
 * that made it names the attempts it went to.
 */
import { describe, expect, test } from 'bun:test'
import { UPSTREAM_KEYS, useGatewaySuite } from '../helpers/gateway-suite.ts'

const t = useGatewaySuite({
  families: ['openai', 'anthropic'],
  providersFromEnv: false,
  yaml: (urls) => `
providers:
  one: { type: openai, api_key: ${UPSTREAM_KEYS.openai}, base_url: "${urls.openai}" }
  two: { type: groq, api_key: ${UPSTREAM_KEYS.openai}, base_url: "${urls.openai}" }
  ant: { type: anthropic, api_key: ${UPSTREAM_KEYS.anthropic}, base_url: "${urls.anthropic}" }
model_output_limits:
  one/error-503: 16000
  one/error-500: 1000
  one/error-401: 16000
  two/gpt-4o-mini: 4096
workflows:
  - name: default
    features: { failover: true }
    plugins:
      failover:
        max_retries: 1
        initial_backoff_ms: 1
        targets:
          one/error-503: [two/gpt-4o-mini]
          one/error-401: [ant/claude-3-5-haiku-latest]
          one/error-500: [two/llama-unknown-limit]
`,
})

const sentTo = (model: string) => t.openaiMock.requests.filter((r) => r.method === 'POST' && r.body?.model === model).map((r) => r.body)

describe('a fallback gets the output limit of its own model', () => {
  test('chat: 20,000 asked, the primary (16,000) and its retry, then the fallback at 4,096, with a revision naming its attempt', async () => {
    const { data, response } = await t.openai.chat.completions
      .create({ model: 'one/error-503', max_completion_tokens: 20_000, store: true, messages: [{ role: 'user', content: 'echo:fell back' }] })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe('fell back')
    expect(sentTo('error-503').map((b) => b.max_completion_tokens)).toEqual([16_000, 16_000])
    // groq's own rules as well: max_tokens instead of max_completion_tokens, no `store`.
    const fallback = sentTo('gpt-4o-mini').at(-1)!
    expect(fallback).toMatchObject({ max_tokens: 4096 })
    expect(fallback.max_completion_tokens).toBeUndefined()
    expect(fallback.store).toBeUndefined()

    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.data.attempts!.map((a) => [a.seq, a.kind, `${a.provider_name}/${a.model}`, a.status_code])).toEqual([
      [1, 'primary', 'one/error-503', 503],
      [2, 'retry', 'one/error-503', 503],
      [3, 'failover', 'two/gpt-4o-mini', 200],
    ])
    const normaliser = entry.data.request_revisions!.filter((r) => r.rewriter === 'parameter-normaliser')
    expect(normaliser.map((r) => r.detail)).toEqual([
      { provider_type: 'openai', changes: ['max_completion_tokens clamped from 20000 to 16000 (output limit of one/error-503)'] },
      {
        provider_type: 'groq',
        target: 'two/gpt-4o-mini',
        attempts: [3],
        changes: [
          'max_completion_tokens clamped from 20000 to 4096 (output limit of two/gpt-4o-mini)',
          'max_completion_tokens renamed to max_tokens',
          'store dropped: not supported by groq',
        ],
      },
    ])
    expect(normaliser[1]!.tokens_saved).toBe(0)
    expect(normaliser[1]!.seq).toBe(entry.data.request_revisions!.length)
  })

  test('a fallback with a higher limit than the primary gets what the client asked for, within its own limit', async () => {
    const { response } = await t.openai.chat.completions
      .create({ model: 'one/error-500', max_tokens: 3000, messages: [{ role: 'user', content: 'echo:more room' }] })
      .withResponse()
    expect(sentTo('error-500').map((b) => b.max_tokens)).toEqual([1000, 1000])
    expect(sentTo('llama-unknown-limit').at(-1)).toMatchObject({ max_tokens: 3000 })
    const entry = await t.audit.entryFor(response.headers.get('x-request-id')!)
    expect(entry.data.request_revisions!.filter((r) => r.rewriter === 'parameter-normaliser').map((r) => r.detail)).toEqual([
      { provider_type: 'openai', changes: ['max_tokens clamped from 3000 to 1000 (output limit of one/error-500)'] },
      { provider_type: 'groq', target: 'two/llama-unknown-limit', attempts: [3], changes: [] },
    ])
  })

  test('/v1/messages (Claude Code asks for 32,000): a native Anthropic fallback gets its model’s 8,192', async () => {
    const res = await fetch(`${t.gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': t.master, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'one/error-401', max_tokens: 32_000, messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(200)
    // Translated to chat on the way to OpenAI: Anthropic's max_tokens is chat's max_completion_tokens.
    expect(sentTo('error-401').at(-1)!.max_completion_tokens).toBe(16_000)
    expect(t.anthropicMock.requests.at(-1)!.body).toMatchObject({ model: 'claude-3-5-haiku-latest', max_tokens: 8192 })
  })
})
