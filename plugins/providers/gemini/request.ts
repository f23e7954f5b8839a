/**
 * @module OpenAI chat request → Gemini `generateContent` request. System and developer messages become
 * `systemInstruction`; assistant turns are role `model`, their tool calls `functionCall` parts with the thought
 * signature restored; tool results are `functionResponse` parts of a user turn, named through the call they
 * answer. Consecutive turns of one role are merged (Gemini wants them alternating). Tools are declared with
 * `parametersJsonSchema`, which takes the client's JSON Schema as it is.
 */
import type { ToolCallMemory } from './tool-call-memory.ts'
import { alternatingTurns, userContentParts } from '../../../src/protocols/chat-history.ts'
import { contentText } from '../../../src/protocols/content-text.ts'

type Json = Record<string, unknown>
type Part = Json
interface Content {
  role: 'user' | 'model'
  parts: Part[]
}

/**
 * Google's documented stand-in for a function call whose signature the gateway never saw (a history written by
 * another provider or another client): Gemini 3 then skips the check instead of refusing the turn.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator'

const THINKING_BUDGET: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 }
const THINKING_LEVEL: Record<string, string> = { minimal: 'low', low: 'low', medium: 'high', high: 'high', xhigh: 'high', max: 'high' }

const MIME_BY_EXTENSION: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' }

function mediaPart(url: string): Part {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  if (data) return { inlineData: { mimeType: data[1], data: data[2] } }
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? ''
  return { fileData: { mimeType: MIME_BY_EXTENSION[ext] ?? 'image/jpeg', fileUri: url } }
}

function userParts(message: Json): Part[] {
  return userContentParts(message.content).map((part) => {
    if (part.kind === 'text') return { text: part.text }
    if (part.kind === 'media') return mediaPart(part.url)
    return { inlineData: { mimeType: `audio/${part.format}`, data: part.data } }
  })
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string' || !value.trim()) return undefined
  try {
    return JSON.parse(value)
  } catch {
    return undefined
  }
}

function signatureOf(call: Json, memory: ToolCallMemory): string | undefined {
  const carried = ((call.extra_content as Json | undefined)?.google as Json | undefined)?.thought_signature
  if (typeof carried === 'string' && carried) return carried
  return memory.recall(String(call.id))?.signature
}

function modelParts(message: Json, memory: ToolCallMemory): Part[] {
  const parts: Part[] = []
  const t = contentText(message.content)
  if (t) parts.push({ text: t })
  const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]
  calls.forEach((call, i) => {
    const fn = (call.function ?? {}) as Json
    const args = parseJson(fn.arguments)
    const part: Part = { functionCall: { name: fn.name, args: typeof args === 'object' && args !== null ? args : {} } }
    // Gemini signs the first call of a step; without a known signature that first call gets the documented skip value.
    const signature = signatureOf(call, memory) ?? (i === 0 ? SKIP_SIGNATURE : undefined)
    if (signature) part.thoughtSignature = signature
    parts.push(part)
  })
  return parts
}

export function chatToGeminiRequest(body: Json, model: string, memory: ToolCallMemory): Json {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Json[]
  // Names of the calls this history made, for tool results that carry only the call id.
  const callNames = new Map<string, string>()
  for (const m of messages) {
    for (const call of (Array.isArray(m.tool_calls) ? m.tool_calls : []) as Json[]) {
      const name = (call.function as Json | undefined)?.name
      if (typeof call.id === 'string' && typeof name === 'string') callNames.set(call.id, name)
    }
  }
  const functionResponse = (m: Json): Part[] => {
    const id = String(m.tool_call_id ?? '')
    const name = callNames.get(id) ?? memory.recall(id)?.name ?? id
    const raw = contentText(m.content)
    return [{ functionResponse: { name, response: { output: parseJson(raw) ?? raw } } }]
  }
  const { system, turns } = alternatingTurns(messages, { user: userParts, assistant: (m) => modelParts(m, memory), tool: functionResponse })
  const contents: Content[] = turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: t.parts }))

  const out: Json = { contents }
  if (system.length > 0) out.systemInstruction = { parts: [{ text: system.join('\n\n') }] }
  const tools = functionDeclarations(body.tools)
  if (tools.length > 0) {
    out.tools = [{ functionDeclarations: tools }]
    const config = toolConfig(body.tool_choice)
    if (config) out.toolConfig = config
  }
  const generation = generationConfig(body, model)
  if (Object.keys(generation).length > 0) out.generationConfig = generation
  return out
}

function functionDeclarations(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return []
  return (tools as Json[])
    .filter((t) => t.type === undefined || t.type === 'function')
    .map((t) => {
      const fn = (t.function ?? t) as Json
      const declaration: Json = { name: fn.name }
      if (fn.description) declaration.description = fn.description
      if (fn.parameters) declaration.parametersJsonSchema = fn.parameters
      return declaration
    })
}

function toolConfig(choice: unknown): Json | undefined {
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } }
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } }
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } }
  const name = (((choice ?? {}) as Json).function as Json | undefined)?.name
  if (typeof name === 'string') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } }
  return undefined
}

function generationConfig(body: Json, model: string): Json {
  const g: Json = {}
  const copy = (from: string, to: string) => {
    if (typeof body[from] === 'number') g[to] = body[from]
  }
  copy('temperature', 'temperature')
  copy('top_p', 'topP')
  copy('n', 'candidateCount')
  copy('seed', 'seed')
  copy('presence_penalty', 'presencePenalty')
  copy('frequency_penalty', 'frequencyPenalty')
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (typeof maxTokens === 'number') g.maxOutputTokens = maxTokens
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : []
  const stops = (stop as unknown[]).filter((s): s is string => typeof s === 'string' && s !== '')
  if (stops.length > 0) g.stopSequences = stops
  if (body.logprobs === true) {
    g.responseLogprobs = true
    if (typeof body.top_logprobs === 'number') g.logprobs = body.top_logprobs
  }
  const format = (body.response_format ?? {}) as Json
  if (format.type === 'json_object') g.responseMimeType = 'application/json'
  else if (format.type === 'json_schema') {
    g.responseMimeType = 'application/json'
    const schema = (format.json_schema as Json | undefined)?.schema
    if (schema) g.responseJsonSchema = schema
  }
  const effort = body.reasoning_effort
  if (typeof effort === 'string') {
    if (/^gemini-3/.test(model)) {
      if (THINKING_LEVEL[effort]) g.thinkingConfig = { thinkingLevel: THINKING_LEVEL[effort], includeThoughts: true }
    } else if (THINKING_BUDGET[effort] !== undefined) {
      const budget = THINKING_BUDGET[effort]!
      g.thinkingConfig = budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true }
    }
  }
  return g
}
