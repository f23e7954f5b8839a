import { beforeAll, describe, expect, test } from 'bun:test'
import { GatewayError } from '../../src/errors/gateway-error.ts'
import { makeContext } from '../../test/helpers/plugin-harness.ts'
import { guardrailsConfig } from './manifest.ts'
import { createGuardrails } from './plugin.ts'
import { loadCountThread } from '../../src/tokens/count-thread.ts'

// The tokenizer thread loads its tables once (seconds on a loaded machine); counts below then answer at once.
beforeAll(() => loadCountThread(), 30_000)

const config = guardrailsConfig.parse({
  rules: [
    { name: 'no-secrets', kind: 'secret', action: 'block', applies_to: ['input', 'output'] },
    { name: 'mask-email', kind: 'email', action: 'mask', applies_to: ['input', 'output'] },
    { name: 'mask-cards', kind: 'card', action: 'mask' },
    { name: 'codename', kind: 'pattern', words: ['falcon'], action: 'block' },
  ],
  max_input_tokens: 200,
  allowed_tools: ['get_weather'],
})
const guard = createGuardrails(config)
const chat = (content: string, extra: Record<string, unknown> = {}) => makeContext({ body: { model: 'm', messages: [{ role: 'user', content }], ...extra } })

describe('input rules', () => {
  test('a block names the rule and never echoes the secret', async () => {
    const ctx = chat('my key is sk-proj-abcdefghijklmnopqrstuvwxyz123')
    const decision = (await guard.before(ctx)) as { kind: string; response: Response }
    expect(decision.kind).toBe('respond')
    const text = await decision.response.text()
    expect(decision.response.status).toBe(400)
    expect(JSON.parse(text).error).toMatchObject({ type: 'invalid_request_error', code: 'guardrail_blocked' })
    expect(text).toContain("'no-secrets'")
    expect(text).not.toContain('sk-proj')
  })

  test('masking rewrites the text and leaves a revision; clean requests pass untouched', async () => {
    const ctx = chat('mail bob@example.com, card 4111-1111-1111-1111')
    expect(await guard.before(ctx)).toEqual({ kind: 'continue' })
    expect((ctx.body.messages as { content: string }[])[0]!.content).toBe('mail [EMAIL], card [CARD]')
    expect(ctx.revisions[0]).toMatchObject({ rewriter: 'guardrails', detail: { masked: { 'mask-email': 1, 'mask-cards': 1 } } })
    expect((ctx.originalBody as { messages: { content: string }[] }).messages[0]!.content).toContain('bob@example.com')

    const clean = chat('hello there')
    await guard.before(clean)
    expect(clean.revisions).toHaveLength(0)
  })

  test('words, input size and the tool allow-list', async () => {
    expect(((await guard.before(chat('the Falcon plan'))) as { kind: string }).kind).toBe('respond')
    const big = chat('word '.repeat(400))
    expect(((await guard.before(big)) as { error?: Error }).error?.message).toContain("'max_input_tokens'")
    const tools = chat('hi', { tools: [{ type: 'function', function: { name: 'delete_everything' } }] })
    expect(((await guard.before(tools)) as { error?: Error }).error?.message).toContain("'allowed_tools'")
    const ok = chat('hi', { tools: [{ type: 'function', function: { name: 'get_weather' } }] })
    expect(await guard.before(ok)).toEqual({ kind: 'continue' })
  })

  test('Responses and Anthropic-shaped bodies are checked too', async () => {
    const responses = makeContext({ endpoint: 'responses', body: { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'to a@b.io' }] }] } })
    await guard.before(responses)
    expect(JSON.stringify(responses.body)).toContain('[EMAIL]')
    const messages = makeContext({ endpoint: 'messages', body: { model: 'm', max_tokens: 5, system: 'falcon', messages: [] } })
    expect(((await guard.before(messages)) as { kind: string }).kind).toBe('respond')
  })
})

describe('output rules', () => {
  const completion = (content: string) =>
    new Response(JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }), {
      headers: { 'content-type': 'application/json' },
    })

  test('mask and block on non-streamed responses', async () => {
    const masked = (await guard.onResponse(chat('x'), completion('reach me at eve@example.org'))) as Response
    expect(((await masked.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('reach me at [EMAIL]')
    const ctx = chat('x')
    const blocked = await guard.onResponse(ctx, completion('here: AKIAIOSFODNN7EXAMPLE'))
    expect(blocked).toBeInstanceOf(GatewayError)
    expect(blocked).toMatchObject({ status: 400, code: 'guardrail_blocked' })
    expect(JSON.stringify(blocked)).not.toContain('AKIA')
  })

  test('streams are not held back', async () => {
    const ctx = chat('x', { stream: true })
    const stream = new Response('data: {"choices":[{"delta":{"content":"eve@example.org"}}]}\n\n', { headers: { 'content-type': 'text/event-stream' } })
    expect(await guard.onResponse(ctx, stream)).toBe(stream)
  })
})

test('an invalid regex is a config error naming the field', () => {
  const result = guardrailsConfig.safeParse({ rules: [{ name: 'bad', kind: 'pattern', pattern: '([' }] })
  expect(result.success).toBe(false)
  expect(result.error!.issues[0]!.path).toEqual(['rules', 0, 'pattern'])
})

test('a pattern that can backtrack exponentially is a config error naming the field', () => {
  const result = guardrailsConfig.safeParse({ rules: [{ name: 'greedy', kind: 'pattern', pattern: '^(\\w+\\s?)*$' }] })
  expect(result.success).toBe(false)
  expect(result.error!.issues[0]).toMatchObject({ path: ['rules', 0, 'pattern'], message: expect.stringContaining('exponential time') })
})

describe('tool definitions (issue 26 defect 12)', () => {
  const blockedBy = async (ctx: ReturnType<typeof makeContext>) => ((await guard.before(ctx)) as { error?: Error }).error?.message

  test("tool descriptions and their parameters' descriptions are scanned: block rules fire, mask rules rewrite them", async () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz123'
    const chatTool = (description: string, parameter: string) => ({
      type: 'function',
      function: { name: 'get_weather', description, parameters: { type: 'object', properties: { city: { type: 'string', description: parameter } } } },
    })
    expect(await blockedBy(chat('hi', { tools: [chatTool(`uses ${secret}`, 'a city')] }))).toContain("'no-secrets'")
    expect(await blockedBy(chat('hi', { tools: [chatTool('weather', `send to ${secret}`)] }))).toContain("'no-secrets'")

    const masked = chat('hi', { tools: [chatTool('mail ops@example.com', 'or eve@example.org')] })
    expect(await guard.before(masked)).toEqual({ kind: 'continue' })
    const fn = (masked.body.tools as { function: { name: string; description: string; parameters: { properties: { city: { description: string } } } } }[])[0]!.function
    expect(fn).toMatchObject({ name: 'get_weather', description: 'mail [EMAIL]', parameters: { properties: { city: { description: 'or [EMAIL]' } } } })

    // Responses and Anthropic tools carry the description at the top of the tool.
    const responses = makeContext({ endpoint: 'responses', body: { model: 'm', input: 'hi', tools: [{ type: 'function', name: 'get_weather', description: `key ${secret}` }] } })
    expect(await blockedBy(responses)).toContain("'no-secrets'")
    const messages = makeContext({
      endpoint: 'messages',
      body: {
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'get_weather', description: 'the falcon tool', input_schema: { type: 'object' } }],
      },
    })
    expect(await blockedBy(messages)).toContain("'codename'")
  })

  test('allowed_tools: a built-in tool is known by its type, so a nameless one no longer passes', async () => {
    const responses = (tools: unknown[]) => makeContext({ endpoint: 'responses', body: { model: 'm', input: 'hi', tools } })
    const messages = (tools: unknown[]) => makeContext({ endpoint: 'messages', body: { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], tools } })
    for (const ctx of [
      responses([{ type: 'web_search' }]),
      responses([
        { type: 'function', name: 'get_weather' },
        { type: 'code_interpreter', container: { type: 'auto' } },
      ]),
      responses([{ type: 'mcp', server_label: 'files', server_url: 'https://mcp.example' }]),
      // An Anthropic server tool's name is fixed by its type and may equal an allowed function's name.
      messages([{ type: 'web_search_20250305', name: 'get_weather' }]),
      chat('hi', { web_search_options: {} }),
      chat('hi', { tools: [{ type: 'function', function: { description: 'no name' } }] }),
      chat('hi', { functions: [{ name: 'delete_everything' }] }),
    ]) {
      expect(await blockedBy(ctx)).toContain("'allowed_tools'")
    }
    const listed = createGuardrails(guardrailsConfig.parse({ allowed_tools: ['get_weather', 'web_search', 'web_search_20250305', 'mcp'] }))
    for (const ctx of [
      responses([{ type: 'web_search' }, { type: 'function', name: 'get_weather' }, { type: 'mcp', server_label: 'files' }]),
      messages([
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'get_weather', input_schema: { type: 'object' } },
      ]),
      chat('hi', { web_search_options: {}, functions: [{ name: 'get_weather' }] }),
    ]) {
      expect(await listed.before(ctx)).toEqual({ kind: 'continue' })
    }
  })
})
