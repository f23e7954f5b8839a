/**
 * @module OpenAI chat request → Anthropic Messages request. System and developer messages become `system`; tool
 * calls become `tool_use` blocks and tool results `tool_result` blocks, consecutive results merged into one user
 * turn ahead of any text; `max_tokens` is required by Anthropic, so a default is set. `response_format` becomes
 * structured output (structured-output.ts). Fields with no Anthropic counterpart (`n`, `logprobs`, `seed`,
 * `logit_bias`, penalties) and parts it cannot read (audio, files by id) are dropped.
 */
import { alternatingTurns, userContentParts } from '../../../src/protocols/chat-history.ts'
import { contentText } from '../../../src/protocols/content-text.ts'
import type { GatewayError } from '../../../src/errors/gateway-error.ts'
import { structuredOutputFor } from './structured-output.ts'
type Json = Record<string, unknown>
type Block = Json & { type: string }

export const DEFAULT_MAX_TOKENS = 4096
const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 1024, medium: 2048, high: 4096, xhigh: 8192, max: 16384 }

/** A data URL or link as an `image` block; PDFs (as data URLs) become `document` blocks, the only other kind Anthropic reads. */
function mediaBlock(url: string): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  if (data) return { type: data[1] === 'application/pdf' ? 'document' : 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
  return { type: 'image', source: { type: 'url', url } }
}

function userBlocks(message: Json): Block[] {
  const blocks: Block[] = []
  for (const part of userContentParts(message.content)) {
    if (part.kind === 'text') blocks.push({ type: 'text', text: part.text })
    else if (part.kind === 'media') blocks.push(mediaBlock(part.url)) // Anthropic reads no audio
  }
  return blocks
}

function assistantBlocks(message: Json): Block[] {
  const blocks: Block[] = []
  const text = contentText(message.content)
  if (text) blocks.push({ type: 'text', text })
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
    const fn = (call.function ?? {}) as Json
    blocks.push({ type: 'tool_use', id: call.id, name: fn.name, input: parseArguments(fn.arguments) })
  }
  return blocks
}

const toolResult = (message: Json): Block[] => [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: contentText(message.content) }]

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string' || !args.trim()) return {}
  try {
    return JSON.parse(args)
  } catch {
    return { input: args }
  }
}

/** The Messages request, or the 400 for a `response_format` the model cannot follow (structured-output.ts). */
export function chatToAnthropicRequest(body: Json, model: string): Json | GatewayError {
  const structured = structuredOutputFor(body.response_format, model)
  if (structured.kind === 'unsupported') return structured.error
  const { system, turns } = alternatingTurns(body.messages, { user: userBlocks, assistant: assistantBlocks, tool: toolResult })

  const out: Json = {
    model,
    messages: turns.map((t) => ({ role: t.role, content: t.parts })),
    max_tokens: (body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS) as number,
  }
  if (structured.kind === 'instruction') system.push(structured.system)
  if (system.length > 0) out.system = system.join('\n\n')
  if (structured.kind === 'schema') out.output_config = structured.outputConfig
  if (typeof body.temperature === 'number') out.temperature = Math.min(1, body.temperature)
  if (typeof body.top_p === 'number') out.top_p = body.top_p
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : []
  const stops = (stop as unknown[]).filter((s): s is string => typeof s === 'string' && s.trim() !== '')
  if (stops.length > 0) out.stop_sequences = stops
  if (body.stream === true) out.stream = true
  if (typeof body.user === 'string') out.metadata = { user_id: body.user }

  if (Array.isArray(body.tools) && body.tools.length > 0) {
    out.tools = (body.tools as Json[]).map((t) => {
      const fn = (t.function ?? t) as Json
      const tool: Json = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } }
      if (fn.description) tool.description = fn.description
      return tool
    })
  }
  const choice = toolChoice(body.tool_choice, body.parallel_tool_calls === false)
  if (choice && out.tools) out.tool_choice = choice

  const effort = typeof body.reasoning_effort === 'string' ? THINKING_BUDGET[body.reasoning_effort] : undefined
  if (effort) {
    out.thinking = { type: 'enabled', budget_tokens: effort }
    if ((out.max_tokens as number) <= effort) out.max_tokens = effort + DEFAULT_MAX_TOKENS
    delete out.temperature // Anthropic accepts only the default temperature with thinking on
  }
  return out
}

function toolChoice(choice: unknown, noParallel: boolean): Json | undefined {
  let out: Json | undefined
  if (choice === 'auto') out = { type: 'auto' }
  else if (choice === 'required') out = { type: 'any' }
  else if (choice === 'none') out = { type: 'none' }
  else if (typeof choice === 'object' && choice !== null) {
    const name = ((choice as Json).function as Json | undefined)?.name
    if (typeof name === 'string') out = { type: 'tool', name }
  }
  if (noParallel) out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true }
  return out
}
