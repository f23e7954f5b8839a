/**
 * @module `chat.completion` → Anthropic message. Text becomes one `text` block, tool calls `tool_use` blocks
 * (`input` = the parsed `arguments`), finish reasons stop reasons, and usage is split back into Anthropic's
 * meaning: `input_tokens` excludes cache reads and writes, which have fields of their own. `reasoning_content`
 * is dropped: a `thinking` block needs an Anthropic signature, and one without would be refused if the
 * conversation later reached an Anthropic model.
 */
import { contentText } from '../content-text.ts'
type Json = Record<string, unknown>

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
}

/** `finish_reason` → `stop_reason`; a `stop` that came with tool calls (some providers say so) is `tool_use`. */
export function stopReason(finishReason: unknown, hasToolCalls: boolean): string {
  const mapped = (typeof finishReason === 'string' && STOP_REASONS[finishReason]) || 'end_turn'
  return mapped === 'end_turn' && hasToolCalls ? 'tool_use' : mapped
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/** Chat usage → Anthropic usage: `input_tokens` = prompt − cache reads − cache writes (never below 0). */
export function anthropicUsage(usage: unknown): Json {
  const u = (usage ?? {}) as Json
  const details = (u.prompt_tokens_details ?? {}) as Json
  const cacheRead = n(details.cached_tokens)
  const cacheWrite = n(details.cache_write_tokens)
  return {
    input_tokens: Math.max(0, n(u.prompt_tokens) - cacheRead - cacheWrite),
    output_tokens: n(u.completion_tokens),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  }
}

/** Tool arguments are JSON text; Anthropic's `input` must be an object, so anything else is wrapped. */
export function toolInput(args: unknown): Json {
  if (typeof args !== 'string' || !args.trim()) return {}
  try {
    const parsed = JSON.parse(args)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : { input: parsed }
  } catch {
    return { input: args }
  }
}

export function messageId(chatId: unknown): string {
  const id = typeof chatId === 'string' ? chatId : ''
  if (id.startsWith('msg_')) return id
  return `msg_${id.replace(/^chatcmpl-/, '') || crypto.randomUUID().replaceAll('-', '')}`
}

export function chatCompletionToMessage(completion: Json, targetModel: string): Json {
  const choice = ((Array.isArray(completion.choices) ? completion.choices[0] : undefined) ?? {}) as Json
  const message = (choice.message ?? {}) as Json
  const content: Json[] = []
  const answer = contentText(message.content)
  if (answer) content.push({ type: 'text', text: answer })
  const refusal = typeof message.refusal === 'string' && message.refusal ? message.refusal : ''
  if (refusal) content.push({ type: 'text', text: refusal })
  const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]
  for (const call of toolCalls) {
    const fn = (call.function ?? {}) as Json
    content.push({ type: 'tool_use', id: String(call.id ?? ''), name: String(fn.name ?? ''), input: toolInput(fn.arguments) })
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    // One rule on every path: the upstream's model id as it reported it, else the target's model id.
    model: String(completion.model ?? '') || targetModel,
    content,
    stop_reason: refusal ? 'refusal' : stopReason(choice.finish_reason, toolCalls.length > 0),
    stop_sequence: null,
    usage: anthropicUsage(completion.usage),
  }
}
