/**
 * @module A mock Amazon Bedrock runtime (`bedrock-runtime.{region}.amazonaws.com`) written from the Bedrock API
 * reference, checking what the real service checks before anything else: the SigV4 signature, recomputed from the
 * request as received for the expected region and service `bedrock` (sigv4-verifier.ts; a wrong key, region, service
 * or body is a 403 `InvalidSignatureException`). Converse and ConverseStream with Bedrock's request validation
 * (roles alternating from the user, tool results answering the previous turn's tool uses, a toolConfig when tools
 * were used, no unknown fields), and InvokeModel / InvokeModelWithResponseStream for Anthropic models in the
 * Messages format (`anthropic_version: bedrock-2023-05-31`, no `model`, the Anthropic mock's answers). Streams are
 * `application/vnd.amazon.eventstream`, encoded with AWS's own codec (`@smithy/core/event-streams`, CRC32 checksums
 * included) and written in 5-byte pieces so messages split across reads. Model names pick behaviours: `…throttled…`
 * (429), `…stream-exception…` (a throttlingException message mid-stream), `…corrupt…` (a wrong checksum),
 * `…tool…` (a toolUse), `…agent…` / prompts of the scripted agent; every request is recorded.
 */
import { EventStreamCodec } from '@smithy/core/event-streams'
import { fromUtf8, toUtf8 } from '@smithy/core/serde'
import { answerFor as anthropicAnswerFor, ANTHROPIC_USAGE, anthropicMessage, MESSAGES_FIELDS, messageEvents, schemaProblem, structuredSchema } from './mock-anthropic-upstream.ts'
import type { RecordedRequest } from './mock-openai-upstream.ts'
import { resultText, scriptedTurn } from './scripted-agent.ts'
import { schemaInstance } from './schema-instance.ts'
import { geminiEmbeddingValues } from './mock-gemini-upstream.ts'
import { type SigV4Expectation, sigV4Problem } from './sigv4-verifier.ts'

export const BEDROCK_TEXT = 'Hello from Bedrock 🙂 — 你好'
export const CONVERSE_USAGE = { inputTokens: 20, outputTokens: 12, totalTokens: 137, cacheReadInputTokens: 100, cacheWriteInputTokens: 5 }
export const THINKING_SIGNATURE = 'EqQBCkYIBxgCKkBbedrockSignatureMock=='

type Json = Record<string, any>

export interface MockBedrock {
  url: string
  requests: RecordedRequest[]
  /** Requests refused for their signature. */
  refusedSignatures: number
  stop(): void
}

const codec = new EventStreamCodec(toUtf8, fromUtf8)

function awsError(status: number, type: string, message: string): Response {
  return Response.json(
    { message },
    { status, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': crypto.randomUUID() } },
  )
}

/** One event stream message, as Bedrock frames it (`p` pads payloads to hide their length). */
export function eventMessage(eventType: string, payload: Json): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ ...payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEF'.slice(0, 1 + (eventType.length % 20)) })),
  })
}

export function exceptionMessage(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exceptionType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  })
}

function eventStream(messages: Uint8Array[]): Response {
  const bytes = new Uint8Array(messages.reduce((n, m) => n + m.byteLength, 0))
  let at = 0
  for (const m of messages) {
    bytes.set(m, at)
    at += m.byteLength
  }
  let offset = 0
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close()
        controller.enqueue(bytes.slice(offset, offset + 5))
        offset += 5
      },
    }),
    { headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': crypto.randomUUID() } },
  )
}

const CONVERSE_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'promptVariables',
  'additionalModelResponseFieldPaths',
  'requestMetadata',
  'performanceConfig',
  'outputConfig',
])

/** What Bedrock's Converse validation refuses, or undefined. */
function converseProblem(body: Json): string | undefined {
  const extra = Object.keys(body).find((k) => !CONVERSE_FIELDS.has(k))
  if (extra) return `extraneous key [${extra}] is not permitted`
  const messages = body.messages
  if (!Array.isArray(messages) || messages.length === 0) return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'
  let previousToolUses: string[] = []
  let usedTools = false
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (i === 0 && m.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'
    if (i > 0 && messages[i - 1].role === m.role)
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.'
    if (!Array.isArray(m.content) || m.content.length === 0)
      return `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`
    const toolUses: string[] = []
    for (const block of m.content) {
      if (block.toolUse) {
        usedTools = true
        toolUses.push(block.toolUse.toolUseId)
        if (typeof block.toolUse.input !== 'object') return 'toolUse.input must be a JSON object'
      }
      if (block.toolResult) {
        usedTools = true
        if (!previousToolUses.includes(block.toolResult.toolUseId))
          return `Expected toolResult blocks at messages.${i}.content for the following Ids: ${previousToolUses.join(', ')}, but found: ${block.toolResult.toolUseId}`
      }
      if (block.image && (typeof block.image.source?.bytes !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(block.image.source.bytes))) return 'Invalid image bytes'
    }
    previousToolUses = toolUses
  }
  if (usedTools && !body.toolConfig) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.'
  const max = body.inferenceConfig?.maxTokens
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) return 'The maximum tokens you requested must be a positive integer'
  if (body.system !== undefined && (!Array.isArray(body.system) || body.system.some((s: Json) => typeof s.text !== 'string'))) return 'system must be a list of SystemContentBlock'
  return undefined
}

/** The answer's content blocks and stop reason for a Converse request. */
function converseAnswer(model: string, body: Json): { content: Json[]; stopReason: string } {
  const schemaText = body.outputConfig?.textFormat?.structure?.jsonSchema?.schema
  if (typeof schemaText === 'string') return { content: [{ text: JSON.stringify(schemaInstance(JSON.parse(schemaText))) }], stopReason: 'end_turn' }
  const turns: Json[] = body.messages
  const userBlocks = turns.filter((m) => m.role === 'user').flatMap((m) => m.content)
  const lastResult = turns.at(-1)?.content.findLast((b: Json) => b.toolResult)?.toolResult
  const texts = [...(body.system ?? []).map((s: Json) => s.text), ...userBlocks.filter((b: Json) => typeof b.text === 'string').map((b: Json) => b.text)]
  const thinking = body.additionalModelRequestFields?.thinking?.type === 'enabled'
  const reasoning = thinking ? [{ reasoningContent: { reasoningText: { text: 'Thinking it over.', signature: THINKING_SIGNATURE } } }] : []
  if (lastResult) {
    const text = lastResult.content.map((c: Json) => c.text ?? JSON.stringify(c.json)).join('')
    return { content: [...reasoning, { text: `Tool said: ${resultText(text).trim()}` }], stopReason: 'end_turn' }
  }
  if (model.includes('tool'))
    return { content: [{ text: 'Let me check.' }, { toolUse: { toolUseId: 'tooluse_mock01', name: 'get_weather', input: { city: 'Paris' } } }], stopReason: 'tool_use' }
  const tools: string[] = (body.toolConfig?.tools ?? []).map((t: Json) => t.toolSpec?.name).filter(Boolean)
  if (texts.some((t) => /call tool |reply with /.test(t))) {
    const turn = scriptedTurn({ texts, tools })
    if (turn.kind === 'call')
      return { content: [{ toolUse: { toolUseId: `tooluse_${turns.length}`, name: turn.name, input: JSON.parse(turn.arguments) } }], stopReason: 'tool_use' }
    return { content: [{ text: turn.text }], stopReason: 'end_turn' }
  }
  if (texts.some((t) => /JSON object/.test(t))) return { content: [{ text: '{"answer":"Paris"}' }], stopReason: 'end_turn' }
  return { content: [...reasoning, { text: BEDROCK_TEXT }], stopReason: 'end_turn' }
}

function converseEvents(content: Json[], stopReason: string): Uint8Array[] {
  const events = [eventMessage('messageStart', { role: 'assistant' })]
  content.forEach((block, contentBlockIndex) => {
    if (block.toolUse) {
      events.push(eventMessage('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } } }))
      const json = JSON.stringify(block.toolUse.input)
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: json.slice(0, 5) } } }))
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: json.slice(5) } } }))
    } else if (block.reasoningContent) {
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { text: block.reasoningContent.reasoningText.text } } }))
      events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature: block.reasoningContent.reasoningText.signature } } }))
    } else {
      for (const piece of Array.from(String(block.text))) events.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { text: piece } }))
    }
    events.push(eventMessage('contentBlockStop', { contentBlockIndex }))
  })
  events.push(eventMessage('messageStop', { stopReason }))
  events.push(eventMessage('metadata', { usage: CONVERSE_USAGE, metrics: { latencyMs: 321 } }))
  return events
}

/** The Anthropic mock's behaviour name for a Bedrock id: `us.anthropic.claude-thinking-v1:0` → `thinking`. */
/**
 * InvokeModel of the embedding models, as Bedrock's model parameters pages document them: Titan Text Embeddings
 * (`{inputText, dimensions}` -> `{embedding, inputTextTokenCount}`; v2 takes 256, 512 or 1024 dimensions) and Cohere
 * Embed (`{texts, input_type}`, at most 96 texts -> `{embeddings, id, response_type, texts}`, the tokens in
 * `X-Amzn-Bedrock-Input-Token-Count`).
 */
function embedAnswer(model: string, body: Json): Response {
  const headers = { 'x-amzn-requestid': crypto.randomUUID() }
  if (model.includes('titan-embed')) {
    const extra = Object.keys(body).find((k) => !['inputText', 'dimensions', 'normalize', 'embeddingTypes'].includes(k))
    if (extra) return awsError(400, 'ValidationException', `Malformed input request: #: extraneous key [${extra}] is not permitted, please reformat your input and try again.`)
    if (typeof body.inputText !== 'string') return awsError(400, 'ValidationException', 'Malformed input request: #: required key [inputText] not found')
    if (body.dimensions !== undefined && ![256, 512, 1024].includes(body.dimensions as number))
      return awsError(400, 'ValidationException', `Malformed input request: #/dimensions: ${body.dimensions} is not a valid enum value`)
    const values = geminiEmbeddingValues(body.inputText, (body.dimensions as number | undefined) ?? 1024)
    return Response.json({ embedding: values, embeddingsByType: { float: values }, inputTextTokenCount: Array.from(body.inputText).length }, { headers })
  }
  const texts = body.texts
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > 96 || !texts.every((t) => typeof t === 'string'))
    return awsError(400, 'ValidationException', 'Malformed input request: #/texts: expected between 1 and 96 strings')
  if (typeof body.input_type !== 'string') return awsError(400, 'ValidationException', 'Malformed input request: #: required key [input_type] not found')
  const tokens = texts.reduce((sum: number, t: string) => sum + Array.from(t).length, 0)
  return Response.json(
    { id: crypto.randomUUID(), response_type: 'embeddings_floats', texts, embeddings: texts.map((t: string) => geminiEmbeddingValues(t, 1024)) },
    { headers: { ...headers, 'x-amzn-bedrock-input-token-count': String(tokens) } },
  )
}

function anthropicBehaviour(model: string): string {
  return /anthropic\.claude-(.+?)(?:-v\d+)?(?::\d+)?$/.exec(model)?.[1] ?? model
}

const INVOKE_FIELDS = new Set([...MESSAGES_FIELDS, 'anthropic_version', 'anthropic_beta'].filter((f) => f !== 'model' && f !== 'stream'))

function invoke(model: string, body: Json, stream: boolean): Response {
  if (body.anthropic_version !== 'bedrock-2023-05-31') return awsError(400, 'ValidationException', 'Malformed input request: #: required key [anthropic_version] not found')
  const extra = Object.keys(body).find((k) => !INVOKE_FIELDS.has(k))
  if (extra) return awsError(400, 'ValidationException', `Malformed input request: #: extraneous key [${extra}] is not permitted`)
  if (typeof body.max_tokens !== 'number') return awsError(400, 'ValidationException', 'Malformed input request: #: required key [max_tokens] not found')
  const schemaError = schemaProblem(structuredSchema(body))
  if (schemaError) return awsError(400, 'ValidationException', `output_config.format.${schemaError}`)
  const behaviour = anthropicBehaviour(model)
  const { content, stopReason } = anthropicAnswerFor(behaviour, body)
  if (!stream) return Response.json(anthropicMessage(model, content, stopReason), { headers: { 'x-amzn-requestid': crypto.randomUUID() } })
  const events = messageEvents(model, content, stopReason)
  const last = events.at(-1)!
  // Bedrock adds its invocation metrics to message_stop.
  last[1] = {
    ...last[1],
    'amazon-bedrock-invocationMetrics': {
      inputTokenCount: ANTHROPIC_USAGE.input_tokens,
      outputTokenCount: ANTHROPIC_USAGE.output_tokens,
      invocationLatency: 800,
      firstByteLatency: 200,
    },
  }
  return eventStream(events.map(([, data]) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(data)).toString('base64') })))
}

export function startMockBedrock(expect: Omit<SigV4Expectation, 'now'>): MockBedrock {
  const requests: RecordedRequest[] = []
  let refusedSignatures = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const raw = new Uint8Array(await req.arrayBuffer())
      const text = new TextDecoder().decode(raw)
      let body: Json | undefined
      try {
        body = text ? JSON.parse(text) : undefined
      } catch {
        body = undefined
      }
      requests.push({ method: req.method, path: url.pathname, search: url.search, headers: Object.fromEntries(req.headers), body: body ?? text })
      const target = req.url.slice(req.url.indexOf('/', 8))
      const problem = sigV4Problem({ method: req.method, target, headers: req.headers, body: raw }, expect)
      if (problem) {
        refusedSignatures++
        const [type, ...message] = problem.split(': ')
        return awsError(403, type!, message.join(': '))
      }
      const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(url.pathname)
      if (req.method !== 'POST' || !route) return awsError(404, 'UnknownOperationException', `Unknown operation ${req.method} ${url.pathname}`)
      if (!body) return awsError(400, 'SerializationException', 'Request body is not JSON')
      const model = decodeURIComponent(route[1]!)
      const operation = route[2]!
      if (model.includes('throttled')) return awsError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.')
      if (model.includes('no-access')) return awsError(403, 'AccessDeniedException', "You don't have access to the model with the specified model ID.")
      if (operation === 'invoke' && /(titan-embed|cohere\.embed)/.test(model)) return embedAnswer(model, body)
      if (operation.startsWith('invoke')) {
        if (!model.includes('anthropic.')) return awsError(400, 'ValidationException', 'The provided model does not support InvokeModel in this mock')
        return invoke(model, body, operation === 'invoke-with-response-stream')
      }
      const problemText = converseProblem(body)
      if (problemText) return awsError(400, 'ValidationException', problemText)
      const { content, stopReason } = converseAnswer(model, body)
      if (operation === 'converse') {
        return Response.json(
          { output: { message: { role: 'assistant', content } }, stopReason, usage: CONVERSE_USAGE, metrics: { latencyMs: 321 } },
          { headers: { 'x-amzn-requestid': 'bedrock-request-0001' } },
        )
      }
      const events = converseEvents(content, stopReason)
      if (model.includes('stream-exception'))
        return eventStream([...events.slice(0, 3), exceptionMessage('throttlingException', 'Too many tokens, please wait before trying again.')])
      if (model.includes('corrupt')) {
        const broken = events[2]!.slice()
        broken[broken.byteLength - 1]! ^= 0xff
        return eventStream([events[0]!, events[1]!, broken, ...events.slice(3)])
      }
      if (model.includes('cut-off')) return eventStream(events.slice(0, 4))
      return eventStream(events)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    get refusedSignatures() {
      return refusedSignatures
    },
    stop: () => server.stop(true),
  }
}
