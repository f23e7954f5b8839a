/**
 * `/v1/completions` (legacy text completions) end to end with the official `openai` SDK: native on OpenAI-family
 * providers, `suffix` (fill-in-the-middle) passed on as sent, streams with and without the usage chunk (asked of
 * the upstream either way, hidden from a client that did not ask), the upstream's errors as the SDK's classes,
 * providers without the API refused, and the request governed like chat: audited, metered and priced.
 */
import { describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'
import { TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'

const t = useGatewaySuite({ families: ['openai', 'anthropic', 'gemini'], env: { LOGGING_LOG_BODIES: 'true', LOGGING_AUDIT_FLUSH_INTERVAL_MS: '5' } })

const MODEL = 'openai/gpt-3.5-turbo-instruct'

describe('OpenAI-family providers: native', () => {
  test('a completion arrives intact with its usage; the request reaches the upstream as sent', async () => {
    const { data, response } = await t.openai.completions.create({ model: MODEL, prompt: 'Say hello', max_tokens: 20, temperature: 0 }).withResponse()
    expect(data).toMatchObject({ object: 'text_completion', model: 'gpt-3.5-turbo-instruct', choices: [{ index: 0, text: TRICKY_TEXT, finish_reason: 'stop' }] })
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: Array.from(TRICKY_TEXT).length })
    expect(t.openaiMock.requests.at(-1)).toMatchObject({ path: '/v1/completions', body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', max_tokens: 20, temperature: 0 } })
    expect(response.headers.get('x-request-id')).toBeTruthy()
  })

  test('fill-in-the-middle: suffix is passed on, and the answer fills the middle', async () => {
    const prompt = 'def add(a, b):\n    '
    const suffix = '\n\nprint(add(1, 2))'
    const data = await t.openai.completions.create({ model: 'openai/deepseek-coder', prompt, suffix, max_tokens: 32 })
    expect(t.openaiMock.requests.at(-1)!.body).toMatchObject({ prompt, suffix })
    expect(data.choices[0]!.text).toBe(`<fill after ${JSON.stringify(prompt.slice(-8))} before ${JSON.stringify(suffix.slice(0, 8))}>`)
  })

  test('prompts as strings, tokens and token arrays reach the upstream as sent', async () => {
    for (const prompt of [
      ['one', 'two'],
      [1212, 318],
      [[1212], [318, 257]],
    ] as const) {
      await t.openai.completions.create({ model: MODEL, prompt: prompt as unknown as string })
      expect(t.openaiMock.requests.at(-1)!.body.prompt).toEqual(prompt)
    }
  })

  test('stream: the text arrives whole (chunks split inside UTF-8 characters); usage when asked', async () => {
    const stream = await t.openai.completions.create({ model: MODEL, prompt: 'echo:Grüße 🙂 你好', stream: true, stream_options: { include_usage: true } })
    let text = ''
    let usage: OpenAI.Completions.CompletionUsage | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? ''
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe('Grüße 🙂 你好')
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: Array.from('Grüße 🙂 你好').length })
  })

  test('stream without include_usage: the upstream is asked for usage, the client never sees the chunk, the entry has it', async () => {
    const res = await fetch(`${t.gw.baseURL}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'echo:abc', stream: true }),
    })
    const raw = await res.text()
    expect(t.openaiMock.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true })
    expect(raw).not.toContain('"usage"')
    expect(raw).toMatch(/^(data: \{.*\}\n\n)+data: \[DONE\]\n\n$/)
    const entry = await t.audit.eventually(
      () => t.audit.entryFor(res.headers.get('x-request-id')!),
      (e) => e.usage !== undefined,
    )
    expect(entry.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 })
    expect(entry.usage!.cost_usd).toBeCloseTo((7 * 1.5 + 3 * 2) / 1e6, 12)
  })

  test("the upstream's errors reach the SDK as its error classes", async () => {
    const limited = await t.openai.completions.create({ model: 'openai/error-429', prompt: 'x' }).catch((e) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    const down = await t.openai.completions.create({ model: 'openai/error-503', prompt: 'x' }).catch((e) => e)
    expect(down).toBeInstanceOf(OpenAI.InternalServerError)
  })
})

describe('refused and checked', () => {
  test('providers without legacy completions (Anthropic, Gemini) are a 400 unsupported_endpoint; nothing is sent', async () => {
    const before = t.anthropicMock.requests.length + t.geminiMock.requests.length
    for (const model of ['anthropic/claude-sonnet-4-5', 'gemini/gemini-2.5-flash']) {
      const err = await t.openai.completions.create({ model, prompt: 'x', suffix: 'y' }).catch((e) => e)
      expect(err).toBeInstanceOf(OpenAI.BadRequestError)
      expect(err.error).toMatchObject({ code: 'unsupported_endpoint' })
    }
    expect(t.anthropicMock.requests.length + t.geminiMock.requests.length).toBe(before)
  })

  test('bad input is a 400 naming the field, and still audited', async () => {
    for (const [body, message] of [
      [{ model: MODEL }, 'prompt: expected a string, an array of strings'],
      [{ model: MODEL, prompt: 'x', suffix: 5 }, 'suffix: expected a string'],
      [{ model: MODEL, prompt: 'x', stream_options: { include_usage: true } }, "stream_options: The 'stream_options' parameter is only allowed"],
    ] as const) {
      const res = await fetch(`${t.gw.baseURL}/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.master}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: { message: string } }).error.message).toStartWith(message)
      expect((await t.audit.entryFor(res.headers.get('x-request-id')!)).status_code).toBe(400)
    }
  })
})
