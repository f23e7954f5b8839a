import type OpenAI from 'openai'
import { describe, expect, test } from 'bun:test'
import type { AuditLogEntry } from '../../src/audit/entry.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const OPERATOR = 'Answer in English.'
const PADDED_OUTPUT = 'a.txt      1   \nb.txt      2\n\n\n\n'
const SLIM_OUTPUT = 'a.txt 1\nb.txt 2\n\n'
const EMAIL_TEXT = 'mail bob@example.com the list'

const t = useGatewaySuite({
  families: ['openai', 'anthropic'],
  yaml: () => `
workflows:
  - name: default
    features: { guardrails: true }
    plugins:
      system-prompt: { prompt: "${OPERATOR}", mode: prepend }
      context-slimmer: { enabled: true }
      guardrails:
        rules:
          - { name: emails, kind: email, action: mask }
`,
  env: { LOGGING_LOG_BODIES: 'true' },
})

const responsesInput: OpenAI.Responses.ResponseInput = [
  { role: 'user', content: EMAIL_TEXT },
  { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
  { type: 'function_call_output', call_id: 'c1', output: PADDED_OUTPUT },
]
const responsesTools: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'ls', parameters: { type: 'object', properties: {} }, strict: false },
  { type: 'function', name: 'ls', parameters: { type: 'object', properties: {} }, strict: false },
]
const messagesBody = {
  max_tokens: 100,
  system: 'Be brief.',
  messages: [
    { role: 'user' as const, content: EMAIL_TEXT },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'ls', input: {} }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: PADDED_OUTPUT }] },
  ],
  tools: [
    { name: 'ls', input_schema: { type: 'object' as const, properties: {} } },
    { name: 'ls', input_schema: { type: 'object' as const, properties: {} } },
  ],
}

async function revisionsOf(requestId: string | null): Promise<AuditLogEntry> {
  return t.audit.entryFor(requestId!)
}

function expectRevisions(entry: AuditLogEntry) {
  const revisions = entry.data.request_revisions!
  // Other rewriters (the parameter normaliser) may run too; these three run in this order and each changed the body.
  const ours = revisions.filter((r) => ['system-prompt', 'context-slimmer', 'guardrails'].includes(r.rewriter))
  expect(ours.map((r) => [r.rewriter, r.no_change ?? false])).toEqual([
    ['system-prompt', false],
    ['context-slimmer', false],
    ['guardrails', false],
  ])
  expect(revisions.map((r) => r.seq)).toEqual(revisions.map((_, i) => i + 1))
  expect(ours[1]!.tokens_saved).toBeGreaterThan(0)
  expect(ours[1]!.detail).toMatchObject({ tool_messages_slimmed: 1, duplicate_tools_removed: 1 })
  expect(ours[2]!.detail).toEqual({ masked: { emails: 1 } })
  expect(ours[0]!.bytes_after).toBeGreaterThan(ours[0]!.bytes_before)
  expect(ours.every((r) => r.body !== undefined)).toBe(true)
  expect(entry.usage?.rewrite_tokens_saved).toBe(revisions.reduce((s, r) => s + r.tokens_saved, 0))
  // The audit keeps the client's own body.
  expect(JSON.stringify(entry.data.request_body)).toContain('bob@example.com')
}

describe('/v1/responses', () => {
  test('native (OpenAI): instructions, function_call_output, duplicate tools and input text are rewritten', async () => {
    const { response } = await t.openai.responses.create({ model: 'openai/gpt-4o', instructions: 'Be brief.', input: responsesInput, tools: responsesTools }).withResponse()
    const sent = t.openaiMock.requests.at(-1)!
    expect(sent.path).toEndWith('/responses')
    expect(sent.body.instructions).toBe(`${OPERATOR}\n\nBe brief.`)
    expect(sent.body.input[2].output).toBe(SLIM_OUTPUT)
    expect(sent.body.tools).toHaveLength(1)
    expect(sent.body.input[0].content).toBe('mail [EMAIL] the list')
    expectRevisions(await revisionsOf(response.headers.get('x-request-id')))
  })

  test('without instructions the operator prompt becomes the instructions', async () => {
    await t.openai.responses.create({ model: 'openai/gpt-4o', input: 'hi' })
    expect(t.openaiMock.requests.at(-1)!.body.instructions).toBe(OPERATOR)
  })

  test('translated (Anthropic): the Anthropic upstream gets the prompt, the slim tool result and the mask', async () => {
    const { response } = await t.openai.responses
      .create({ model: 'anthropic/claude-sonnet-4-5', instructions: 'Be brief.', input: responsesInput, tools: responsesTools })
      .withResponse()
    const sent = t.anthropicMock.requests.at(-1)!.body
    expect(sent.system).toBe(`${OPERATOR}\n\nBe brief.`)
    expect(JSON.stringify(sent.messages)).toContain(JSON.stringify(SLIM_OUTPUT))
    expect(JSON.stringify(sent.messages)).not.toContain('bob@example.com')
    expect(sent.tools).toHaveLength(1)
    expectRevisions(await revisionsOf(response.headers.get('x-request-id')))
  })
})

describe('/v1/messages', () => {
  test('native (Anthropic): system, tool_result, duplicate tools and message text are rewritten', async () => {
    const { response } = await t.claude.messages.create({ model: 'anthropic/claude-sonnet-4-5', ...messagesBody }).withResponse()
    const sent = t.anthropicMock.requests.at(-1)!.body
    expect(sent.system).toBe(`${OPERATOR}\n\nBe brief.`)
    expect(sent.messages[2].content[0].content).toBe(SLIM_OUTPUT)
    expect(sent.messages[0].content).toBe('mail [EMAIL] the list')
    expect(sent.tools).toHaveLength(1)
    expectRevisions(await revisionsOf(response.headers.get('x-request-id')))
  })

  test('a system given as blocks keeps its blocks (and their cache_control), the operator text goes first', async () => {
    await t.claude.messages.create({
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 10,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(t.anthropicMock.requests.at(-1)!.body.system).toEqual([
      { type: 'text', text: OPERATOR },
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ])
  })

  test('translated (OpenAI): the chat upstream gets the prompt, the slim tool result and the mask', async () => {
    const { response } = await t.claude.messages.create({ model: 'openai/gpt-4o', ...messagesBody }).withResponse()
    const sent = t.openaiMock.requests.at(-1)!.body
    expect(sent.messages[0]).toEqual({ role: 'system', content: `${OPERATOR}\n\nBe brief.` })
    expect(JSON.stringify(sent.messages)).toContain(JSON.stringify(SLIM_OUTPUT))
    expect(JSON.stringify(sent.messages)).not.toContain('bob@example.com')
    expectRevisions(await revisionsOf(response.headers.get('x-request-id')))
  })
})
