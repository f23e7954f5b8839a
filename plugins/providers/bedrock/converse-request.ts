/**
 * @module OpenAI chat request → Bedrock Converse request. System and developer messages become `system` blocks;
 * turns alternate (consecutive messages of one side merged, tool results first in their user turn); images and
 * PDFs as base64 `bytes` (data: URLs) or `s3Location` (s3:// URLs); tool calls `toolUse`, tool results
 * `toolResult`; sampling in `inferenceConfig`; tools in `toolConfig`; `response_format` as `outputConfig.textFormat`
 * (a JSON schema) or an instruction (`json_object`); `reasoning_effort` as Claude's `thinking` in
 * `additionalModelRequestFields`. A part Converse cannot take (an image by http URL) is a 400 naming it.
 */
import { type GatewayError, gatewayErrors } from '../../../src/errors/gateway-error.ts'
import { alternatingTurns, userContentParts } from '../../../src/protocols/chat-history.ts'
import { contentText } from '../../../src/protocols/content-text.ts'
import { DEFAULT_MAX_TOKENS } from '../anthropic/request.ts'
import { structuredOutputFor } from '../anthropic/structured-output.ts'
import { anthropicModelName, isAnthropicModel } from './anthropic-models.ts'

type Json = Record<string, unknown>
type Block = Json

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' }
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
}
const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 1024, medium: 2048, high: 4096, xhigh: 8192, max: 16384 }

class Unsupported {
  constructor(readonly error: GatewayError) {}
}

function mediaBlock(url: string, documentCount: { n: number }): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  if (data) {
    const mime = data[1]!.toLowerCase()
    if (IMAGE_FORMATS[mime]) return { image: { format: IMAGE_FORMATS[mime], source: { bytes: data[2] } } }
    if (DOCUMENT_FORMATS[mime]) return { document: { format: DOCUMENT_FORMATS[mime], name: `document-${++documentCount.n}`, source: { bytes: data[2] } } }
    throw new Unsupported(gatewayErrors.invalidRequest(`Bedrock's Converse API does not take '${mime}' content.`, 'messages', 'unsupported_content'))
  }
  if (url.startsWith('s3://')) {
    const ext = /\.([a-z0-9]+)$/i.exec(url)?.[1]?.toLowerCase() ?? 'png'
    const format = ext === 'jpg' ? 'jpeg' : ext
    if (Object.values(DOCUMENT_FORMATS).includes(format)) return { document: { format, name: `document-${++documentCount.n}`, source: { s3Location: { uri: url } } } }
    return { image: { format, source: { s3Location: { uri: url } } } }
  }
  throw new Unsupported(
    gatewayErrors.invalidRequest('Bedrock takes images and documents as data: URLs (base64) or s3:// locations, not as links it would fetch.', 'messages', 'unsupported_content'),
  )
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string' || !args.trim()) return {}
  try {
    const value: unknown = JSON.parse(args)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { input: value }
  } catch {
    return { input: args }
  }
}

/** A tool result as JSON when it is a JSON object, else as text (Converse's two content kinds). */
function toolResultContent(text: string): Block[] {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return [{ json: value }]
  } catch {
    // text
  }
  return [{ text: text || ' ' }]
}

/** The Converse request, or the 400 for what Converse cannot carry. */
export function chatToConverseRequest(body: Json, model: string): Json | GatewayError {
  const documents = { n: 0 }
  let conversation: ReturnType<typeof alternatingTurns<Block>>
  try {
    conversation = alternatingTurns<Block>(body.messages, {
      user: (m) =>
        userContentParts(m.content).flatMap((part) =>
          part.kind === 'text' ? (part.text ? [{ text: part.text }] : []) : part.kind === 'media' ? [mediaBlock(part.url, documents)] : [],
        ),
      assistant: (m) => {
        const blocks: Block[] = []
        const text = contentText(m.content)
        if (text) blocks.push({ text })
        for (const call of (Array.isArray(m.tool_calls) ? m.tool_calls : []) as Json[]) {
          const fn = (call.function ?? {}) as Json
          blocks.push({ toolUse: { toolUseId: call.id, name: fn.name, input: parseArguments(fn.arguments) } })
        }
        return blocks
      },
      tool: (m) => [{ toolResult: { toolUseId: m.tool_call_id, content: toolResultContent(contentText(m.content)) } }],
    })
  } catch (error) {
    if (error instanceof Unsupported) return error.error
    throw error
  }
  const { system, turns } = conversation
  const out: Json = { messages: turns.map((t) => ({ role: t.role, content: t.parts })) }

  const structured = structuredOutputFor(body.response_format, isAnthropicModel(model) ? anthropicModelName(model) : model)
  if (structured.kind === 'unsupported') return structured.error
  if (structured.kind === 'instruction') system.push(structured.system)
  if (structured.kind === 'schema') {
    const format = (body.response_format as Json).json_schema as Json
    // Claude behind Bedrock needs the schema prepared as for Anthropic (every object closed); other models take it as sent.
    const schema = isAnthropicModel(model) ? ((structured.outputConfig.format as Json).schema as Json) : (format.schema as Json)
    const jsonSchema: Json = { schema: JSON.stringify(schema), name: typeof format.name === 'string' ? format.name : 'output' }
    if (typeof format.description === 'string') jsonSchema.description = format.description
    out.outputConfig = { textFormat: { type: 'json_schema', structure: { jsonSchema } } }
  }
  const texts = system.filter((s) => s !== '')
  if (texts.length > 0) out.system = texts.map((text) => ({ text }))

  const inference: Json = {}
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (typeof maxTokens === 'number') inference.maxTokens = maxTokens
  else if (isAnthropicModel(model)) inference.maxTokens = DEFAULT_MAX_TOKENS
  if (typeof body.temperature === 'number') inference.temperature = isAnthropicModel(model) ? Math.min(1, body.temperature) : body.temperature
  if (typeof body.top_p === 'number') inference.topP = body.top_p
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : []
  const stops = (stop as unknown[]).filter((s): s is string => typeof s === 'string' && s.trim() !== '')
  if (stops.length > 0) inference.stopSequences = stops

  const effort = typeof body.reasoning_effort === 'string' ? THINKING_BUDGET[body.reasoning_effort] : undefined
  if (effort && isAnthropicModel(model)) {
    out.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: effort } }
    if (((inference.maxTokens as number | undefined) ?? 0) <= effort) inference.maxTokens = effort + DEFAULT_MAX_TOKENS
    delete inference.temperature // Claude takes only the default temperature with thinking on
    delete inference.topP
  }
  if (Object.keys(inference).length > 0) out.inferenceConfig = inference

  const tools = toolSpecs(body.tools)
  if (tools.length > 0) {
    const toolConfig: Json = { tools }
    const choice = toolChoice(body.tool_choice)
    if (choice) toolConfig.toolChoice = choice
    out.toolConfig = toolConfig
  }
  return out
}

function toolSpecs(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return []
  return (tools as Json[])
    .filter((t) => t.type === undefined || t.type === 'function')
    .map((t) => {
      const fn = (t.function ?? t) as Json
      const spec: Json = { name: fn.name, inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } } }
      if (fn.description) spec.description = fn.description
      return { toolSpec: spec }
    })
}

/** `none` has no Converse counterpart: the tools stay declared (a history with tool calls needs them) and the model chooses. */
function toolChoice(choice: unknown): Json | undefined {
  if (choice === 'auto') return { auto: {} }
  if (choice === 'required') return { any: {} }
  const name = (((choice ?? {}) as Json).function as Json | undefined)?.name
  if (typeof name === 'string') return { tool: { name } }
  return undefined
}
