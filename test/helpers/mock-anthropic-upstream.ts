/**
 * @module A mock Anthropic Messages upstream speaking the real wire format (facts from the public API reference):
 * JSON messages, SSE with `event:` lines (pings included, trailing spaces after the JSON, multi-byte characters
 * split across reads), a stream-borne `error` event, error bodies `{"type":"error","error":{type,message}}` with
 * their statuses, `count_tokens` and the model list. The model name picks a behaviour; every request is recorded.
 */
import { type RecordedRequest, serveRecording } from './mock-openai-upstream.ts'
import { AGENT_MODEL, resultText, scriptedTurn } from './scripted-agent.ts'
import { schemaInstance } from './schema-instance.ts'

const encoder = new TextEncoder()

export const ANTHROPIC_TEXT = 'Bonjour 🙂 — 你好'
export const ANTHROPIC_USAGE = { input_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 12, service_tier: 'standard' }
/** What the mock's count_tokens answers, so tests can tell it from the gateway's estimate. */
export const NATIVE_TOKEN_COUNT = 4242

type Block = Record<string, unknown>
export type AnthropicEvent = [string, Record<string, unknown>]
type Event = AnthropicEvent

export function anthropicMessage(model: string, content: Block[], stopReason: string | null, usage: Record<string, unknown> = ANTHROPIC_USAGE) {
  return { id: 'msg_mock01', type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage }
}

function anthropicError(status: number, type: string, text: string, headers: Record<string, string> = {}): Response {
  return Response.json({ type: 'error', error: { type, message: text }, request_id: 'req_mock_error' }, { status, headers: { 'request-id': 'req_mock_error', ...headers } })
}

/** The event sequence of a finished message: start, one block per content item (streamed in pieces), delta, stop. */
export function messageEvents(model: string, content: Block[], stopReason: string, opts: { pingAfter?: number; finalUsage?: Record<string, unknown> } = {}): Event[] {
  const events: Event[] = [['message_start', { type: 'message_start', message: anthropicMessage(model, [], null, { ...ANTHROPIC_USAGE, output_tokens: 1 }) }]]
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }])
      if (index === opts.pingAfter) events.push(['ping', { type: 'ping' }])
      for (const piece of Array.from(String(block.text))) events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }])
    } else if (block.type === 'thinking') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }])
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: String(block.thinking) } }])
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: String(block.signature) } }])
    } else if (block.type === 'tool_use') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }])
      const json = JSON.stringify(block.input)
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } }])
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 7) } }])
      events.push(['ping', { type: 'ping' }])
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(7) } }])
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }])
  })
  events.push([
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: opts.finalUsage ?? { output_tokens: ANTHROPIC_USAGE.output_tokens } },
  ])
  events.push(['message_stop', { type: 'message_stop' }])
  return events
}

/**
 * `pause`: one quiet spell of `ms` after the first `afterBytes` bytes (cut inside or between events), to see what
 * the gateway sends while it waits.
 */
function sse(events: Event[], opts: { split?: boolean; breakAfter?: number; pause?: { afterBytes: number; ms: number } } = {}): Response {
  // Real Anthropic streams sometimes carry spaces after the JSON; parsers must not mind.
  const frames = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}   \n\n`)
  const bytes = encoder.encode(frames.join(''))
  const pieces: Uint8Array[] = []
  // Seven-byte reads cut through event lines and through the 3- and 4-byte characters of the text.
  if (opts.split) for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.slice(i, i + 7))
  else if (opts.pause) pieces.push(bytes.slice(0, opts.pause.afterBytes), bytes.slice(opts.pause.afterBytes))
  else pieces.push(...frames.map((f) => encoder.encode(f)))
  let i = 0
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (opts.breakAfter !== undefined && i >= opts.breakAfter) return controller.error(new Error('connection reset'))
        if (i >= pieces.length) return controller.close()
        if (opts.breakAfter !== undefined) await Bun.sleep(10)
        if (opts.pause && i === 1) await Bun.sleep(opts.pause.ms)
        controller.enqueue(pieces[i++]!)
      },
    }),
    { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_anthropic_1' } },
  )
}

function lastUserText(body: any): string {
  const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined
  if (typeof last?.content === 'string') return last.content
  const text = Array.isArray(last?.content) ? last.content.find((b: any) => b?.type === 'text')?.text : undefined
  return typeof text === 'string' ? text : ''
}

/** Top-level fields of a Messages request; the real API refuses others ("Extra inputs are not permitted"). */
export const MESSAGES_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'output_config',
  'output_format',
  'inference_geo',
  'cache_control',
])

/** Models older than structured outputs answer 400 when asked for it, as the real API does. */
const NO_STRUCTURED_OUTPUT = /^claude-(3|2|instant|opus-4-0|opus-4-1|opus-4-2025|sonnet-4-0|sonnet-4-2025)/

/** What the real API refuses in a structured-output schema: an object not closed, or a bound it cannot decode. */
export function schemaProblem(schema: any, path = 'schema'): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  if ((schema.type === 'object' || schema.properties) && schema.additionalProperties !== false)
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems'])
    if (key in schema) return `${path}: '${key}' is not supported`
  for (const [key, value] of Object.entries(schema)) {
    const children =
      key === 'properties' || key === '$defs' || key === 'definitions'
        ? Object.entries(value as object)
        : Array.isArray(value)
          ? value.map((v, i) => [String(i), v])
          : key === 'items'
            ? [['items', value]]
            : []
    for (const [name, child] of children) {
      const problem = schemaProblem(child, `${path}.${key}.${name}`)
      if (problem) return problem
    }
  }
  return undefined
}

export function structuredSchema(body: any): Record<string, unknown> | undefined {
  const format = body?.output_config?.format ?? body?.output_format
  return format?.type === 'json_schema' && typeof format.schema === 'object' ? format.schema : undefined
}

/** Content and stop reason for a model name. */
export function answerFor(model: string, body: any): { content: Block[]; stopReason: string } {
  if (model === AGENT_MODEL) return agentAnswer(body)
  const schema = structuredSchema(body)
  if (schema) return { content: [{ type: 'text', text: JSON.stringify(schemaInstance(schema)) }], stopReason: 'end_turn' }
  // Like a real model, it follows a system instruction to answer with a JSON object.
  if (typeof body?.system === 'string' && /JSON object/.test(body.system)) return { content: [{ type: 'text', text: '{"answer":"Paris"}' }], stopReason: 'end_turn' }
  const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined
  const toolResult = Array.isArray(last?.content) ? last.content.find((b: any) => b?.type === 'tool_result') : undefined
  if (toolResult) {
    const result = typeof toolResult.content === 'string' ? toolResult.content : (toolResult.content ?? []).map((b: any) => b.text ?? '').join('')
    return { content: [{ type: 'text', text: `Result: ${result}` }], stopReason: 'end_turn' }
  }
  switch (model) {
    case 'tool':
      return {
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
        stopReason: 'tool_use',
      }
    case 'thinking':
      return {
        content: [
          { type: 'thinking', thinking: 'The user greets me.', signature: 'sig_mock' },
          { type: 'text', text: 'Hi!' },
        ],
        stopReason: 'end_turn',
      }
    case 'max-tokens':
      return { content: [{ type: 'text', text: 'Cut sh' }], stopReason: 'max_tokens' }
    default: {
      const text = lastUserText(body)
      return { content: [{ type: 'text', text: text.startsWith('echo:') ? text.slice(5) : ANTHROPIC_TEXT }], stopReason: 'end_turn' }
    }
  }
}

function agentAnswer(body: any): { content: Block[]; stopReason: string } {
  const blocks: any[] = (body?.messages ?? []).flatMap((m: any) => (m?.role !== 'user' ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content))
  const result = blocks.findLast((b) => b?.type === 'tool_result')
  const turn = scriptedTurn({
    texts: blocks.filter((b) => b?.type === 'text').map((b) => b.text),
    tools: (body?.tools ?? []).map((t: any) => t?.name).filter(Boolean),
    toolResult: result ? resultText(result.content) : undefined,
  })
  if (turn.kind === 'text') return { content: [{ type: 'text', text: turn.text }], stopReason: 'end_turn' }
  return { content: [{ type: 'tool_use', id: `toolu_agent${body.messages.length}`, name: turn.name, input: JSON.parse(turn.arguments) }], stopReason: 'tool_use' }
}

export interface MockAnthropic {
  url: string
  requests: RecordedRequest[]
  stop(): void
}

export function startMockAnthropic(apiKey = 'sk-ant-test'): MockAnthropic {
  const server = serveRecording(async (req, url, recorded) => {
    const body = recorded.body
    if (req.headers.get('x-api-key') !== apiKey) return anthropicError(401, 'authentication_error', 'invalid x-api-key')
    if (!req.headers.get('anthropic-version')) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return Response.json({
        data: [{ id: 'claude-sonnet-4-5', type: 'model', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }],
        has_more: false,
        first_id: 'claude-sonnet-4-5',
        last_id: 'claude-sonnet-4-5',
      })
    }
    if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') return Response.json({ input_tokens: NATIVE_TOKEN_COUNT })
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') return anthropicError(404, 'not_found_error', `Not found: ${req.method} ${url.pathname}`)
    if (typeof body?.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
    const extra = Object.keys(body).find((key) => !MESSAGES_FIELDS.has(key))
    if (extra) return anthropicError(400, 'invalid_request_error', `${extra}: Extra inputs are not permitted`)
    const schemaError = schemaProblem(structuredSchema(body))
    if (schemaError) return anthropicError(400, 'invalid_request_error', `output_config.format.${schemaError}`)
    if (structuredSchema(body) && NO_STRUCTURED_OUTPUT.test(String(body.model)))
      return anthropicError(400, 'invalid_request_error', `'${body.model}' does not support output format.`)

    return messagesAnswer(body.model ?? '', body)
  })
  return { url: `${server.origin}/v1`, requests: server.requests, stop: server.stop }
}

/** The Messages answer (JSON or event stream) for a valid request: the model name picks the behaviour. */
export function messagesAnswer(model: string, body: any): Response {
  const stream = body.stream === true
  switch (model) {
    case 'overloaded':
      return anthropicError(529, 'overloaded_error', 'Overloaded')
    case 'rate-limited':
      return anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '7' })
    case 'no-mid-system':
      // What Anthropic answers for a model without mid-conversation system messages (claude-code#61412).
      if ((body.messages ?? []).some((m: any) => m?.role === 'system')) return anthropicError(400, 'invalid_request_error', "role 'system' is not supported on this model")
      break
    case 'bad-request':
      return anthropicError(400, 'invalid_request_error', 'messages.0.content: Input should be a valid list')
    case 'missing-model':
      return anthropicError(404, 'not_found_error', `model: ${model}`)
    case 'stream-error':
      return sse([
        ['message_start', { type: 'message_start', message: anthropicMessage(model, [], null) }],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Par' } }],
        ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
      ])
  }
  const { content, stopReason } = answerFor(model, body)
  if (!stream) return Response.json(anthropicMessage(model, content, stopReason))
  // Newer API versions repeat input and cache counts in message_delta; `final-usage` sends them that way.
  const finalUsage = model === 'final-usage' ? { ...ANTHROPIC_USAGE, input_tokens: 21 } : undefined
  const events = messageEvents(model, content, stopReason, { pingAfter: 0, finalUsage })
  if (model === 'pause-inside-event' || model === 'pause-between-events') {
    const first = `event: message_start\ndata: ${JSON.stringify(events[0]![1])}   \n\n`
    const afterBytes = encoder.encode(first).length + (model === 'pause-inside-event' ? 30 : 0)
    return sse(events, { pause: { afterBytes, ms: 1300 } })
  }
  return sse(events, { split: true, breakAfter: model === 'broken' ? 70 : undefined })
}
