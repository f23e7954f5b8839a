/**
 * The protocol matrix: {Chat Completions, Responses, Anthropic Messages} ingress × {OpenAI, Anthropic, Gemini}
 * upstream × {stream, non-stream} × {text, tool call, tool result turn}. Every cell goes through the official
 * client of its ingress (`openai`, `@anthropic-ai/sdk`) and, for streams, the client's own accumulator
 * (`finalChatCompletion`, `finalResponse`, `finalMessage`), which throws on a malformed stream. A tool result turn
 * is answered by each mock as `Result: <what it received>`, so a passing cell proves the result reached the
 * upstream in that upstream's own format.
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, test } from 'bun:test'
import { ANTHROPIC_TEXT } from '../helpers/mock-anthropic-upstream.ts'
import { GEMINI_TEXT } from '../helpers/mock-gemini-upstream.ts'
import { RESPONSES_TEXT, TRICKY_TEXT } from '../helpers/mock-openai-upstream.ts'
import { useGatewaySuite } from '../helpers/gateway-suite.ts'

const _MASTER = 'master-key-for-tests-0123456789abcdef'

const t = useGatewaySuite({ families: ['openai', 'anthropic', 'gemini'] })

type Upstream = 'openai' | 'anthropic' | 'gemini'
type Ingress = 'chat' | 'responses' | 'messages'
type Turn = 'text' | 'tool call' | 'tool result'

/** The model each mock answers with text, and the one that calls `get_weather({city: "Paris"})`. */
const MODELS: Record<Upstream, { text: string; tool: string }> = {
  openai: { text: 'openai/gpt-4o', tool: 'openai/tools' },
  anthropic: { text: 'anthropic/claude-sonnet-4-5', tool: 'anthropic/tool' },
  gemini: { text: 'gemini/gemini-2.5-flash', tool: 'gemini/gemini-2.5-flash-tool' },
}

function expectedText(upstream: Upstream, ingress: Ingress): string {
  if (upstream === 'anthropic') return ANTHROPIC_TEXT
  if (upstream === 'gemini') return GEMINI_TEXT
  // The OpenAI upstream speaks Responses natively, and its mock answers that API with its own text.
  return ingress === 'responses' ? RESPONSES_TEXT : TRICKY_TEXT
}

const RESULT = '{"temp":18}'
const chatTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
}
const responsesTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}
const anthropicTool = {
  name: 'get_weather',
  description: 'Weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
}

/** What one cell observed, in ingress-neutral terms. */
interface Outcome {
  text: string
  toolCall?: { name: string; args: unknown; id: string }
  finish: string
}

async function viaChat(model: string, turn: Turn, stream: boolean): Promise<Outcome> {
  const messages: OpenAI.ChatCompletionMessageParam[] =
    turn === 'tool result'
      ? [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: RESULT },
        ]
      : [{ role: 'user', content: 'Weather in Paris?' }]
  const params = { model, messages, tools: [chatTool] }
  const completion = stream ? await t.openai.chat.completions.stream(params).finalChatCompletion() : await t.openai.chat.completions.create(params)
  const choice = completion.choices[0]!
  const call = choice.message.tool_calls?.[0]
  return {
    text: choice.message.content ?? '',
    toolCall: call?.type === 'function' ? { name: call.function.name, args: JSON.parse(call.function.arguments), id: call.id } : undefined,
    finish: choice.finish_reason,
  }
}

async function viaResponses(model: string, turn: Turn, stream: boolean): Promise<Outcome> {
  const input: OpenAI.Responses.ResponseInput =
    turn === 'tool result'
      ? [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_1', output: RESULT },
        ]
      : [{ role: 'user', content: 'Weather in Paris?' }]
  const params = { model, input, tools: [responsesTool] }
  const response = stream ? await t.openai.responses.stream(params).finalResponse() : await t.openai.responses.create(params)
  expect(response.status).toBe('completed')
  const call = response.output.find((o) => o.type === 'function_call')
  return {
    text: response.output_text,
    toolCall: call?.type === 'function_call' ? { name: call.name, args: JSON.parse(call.arguments), id: call.call_id } : undefined,
    finish: call ? 'tool_calls' : 'stop',
  }
}

async function viaMessages(model: string, turn: Turn, stream: boolean): Promise<Outcome> {
  const messages: Anthropic.MessageParam[] =
    turn === 'tool result'
      ? [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: RESULT }] },
        ]
      : [{ role: 'user', content: 'Weather in Paris?' }]
  const params = { model, max_tokens: 200, messages, tools: [anthropicTool] }
  const message = stream ? await t.claude.messages.stream(params).finalMessage() : await t.claude.messages.create(params)
  const call = message.content.find((b) => b.type === 'tool_use')
  return {
    text: message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
    toolCall: call?.type === 'tool_use' ? { name: call.name, args: call.input, id: call.id } : undefined,
    finish: message.stop_reason === 'tool_use' ? 'tool_calls' : message.stop_reason === 'end_turn' ? 'stop' : String(message.stop_reason),
  }
}

const INGRESS: Record<Ingress, (model: string, turn: Turn, stream: boolean) => Promise<Outcome>> = { chat: viaChat, responses: viaResponses, messages: viaMessages }

for (const ingress of ['chat', 'responses', 'messages'] as const) {
  describe(`${ingress} ingress`, () => {
    for (const upstream of ['openai', 'anthropic', 'gemini'] as const) {
      for (const stream of [false, true]) {
        for (const turn of ['text', 'tool call', 'tool result'] as const) {
          test(`${upstream} upstream, ${stream ? 'stream' : 'non-stream'}, ${turn}`, async () => {
            const outcome = await INGRESS[ingress](turn === 'tool call' ? MODELS[upstream].tool : MODELS[upstream].text, turn, stream)
            if (turn === 'text') {
              expect(outcome).toMatchObject({ text: expectedText(upstream, ingress), finish: 'stop' })
              expect(outcome.toolCall).toBeUndefined()
            } else if (turn === 'tool call') {
              expect(outcome.finish).toBe('tool_calls')
              expect(outcome.toolCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } })
              expect(outcome.toolCall!.id).not.toBe('')
            } else {
              expect(outcome.finish).toBe('stop')
              expect(outcome.text).toStartWith('Result: ')
              expect(outcome.text).toContain('"temp":18')
            }
          })
        }
      }
    }
  })
}

describe('Gemini specifics through the gateway', () => {
  test('a Gemini 3 tool call continues on the next turn with its signature, also when the client drops extra fields', async () => {
    const first = await t.openai.chat.completions.create({ model: 'gemini/gemini-3-tool', messages: [{ role: 'user', content: 'Weather?' }], tools: [chatTool] })
    const call = first.choices[0]!.message.tool_calls![0]!
    expect(call.id).toMatch(/^call_/)
    if (call.type !== 'function') throw new Error('expected a function call')
    const second = await t.openai.chat.completions.create({
      model: 'gemini/gemini-3-tool',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] },
        { role: 'tool', tool_call_id: call.id, content: RESULT },
      ],
      tools: [chatTool],
    })
    expect(second.choices[0]!.message.content).toBe('Result: {"output":{"temp":18}}')
    const sent = t.geminiMock.requests.at(-1)!.body.contents
    expect(sent[1].parts[0].thoughtSignature).toBe('CiQBVKhc7gVNmockSignature==')
  })

  test('usage: thinking counts as completion, cached content as cached prompt tokens', async () => {
    const completion = await t.openai.chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] })
    expect(completion.usage).toMatchObject({
      prompt_tokens: 293,
      completion_tokens: 130,
      total_tokens: 423,
      prompt_tokens_details: { cached_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 110 },
    })
  })

  test('errors reach each client as its own exception class', async () => {
    const missing = await t.openai.chat.completions.create({ model: 'gemini/missing-model', messages: [{ role: 'user', content: 'x' }], stream: true }).catch((e) => e)
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError)
    const limited = await t.claude.messages.create({ model: 'gemini/rate-limited', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
    expect(limited.headers.get('retry-after')).toBe('7')
  })

  test('an error inside a Gemini stream ends each client stream with an error, not a truncated frame', async () => {
    await expect(t.openai.chat.completions.stream({ model: 'gemini/stream-error', messages: [{ role: 'user', content: 'x' }] }).finalChatCompletion()).rejects.toThrow(/overloaded/)
    // The Responses protocol reports it as a terminal response.failed event, which the helper resolves with.
    const failed = await t.openai.responses.stream({ model: 'gemini/stream-error', input: 'x' }).finalResponse()
    expect(failed.status).toBe('failed')
    expect(failed.error?.message).toMatch(/overloaded/)
    await expect(t.claude.messages.stream({ model: 'gemini/stream-error', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).finalMessage()).rejects.toThrow(/overloaded/)
  })

  test('/v1/models lists the Gemini models that generate content', async () => {
    const ids = []
    for await (const m of t.openai.models.list()) ids.push(m.id)
    expect(ids).toEqual(expect.arrayContaining(['gemini/gemini-2.5-flash', 'gemini/gemini-3-pro-preview']))
    expect(ids).not.toContain('gemini/text-embedding-004')
  })
})
