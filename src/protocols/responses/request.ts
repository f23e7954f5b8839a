/**
 * @module Responses API request → Chat Completions request, for upstreams without a native Responses API.
 * Mapping per OpenAI's own field correspondences: instructions → leading system message, input items →
 * messages (consecutive function calls merged into one assistant turn), flat tools → nested function tools
 * (namespaces flattened, hosted tools dropped: see tools.ts), max_output_tokens → max_completion_tokens,
 * text.format → response_format, reasoning.effort → reasoning_effort.
 */
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { flatToolName, toolChoiceToChat, translateTools, type ToolNames } from './tools.ts'

type Json = Record<string, unknown>
type ChatMessage = Json & { role: string }

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Fields the Responses API has that chat upstreams do not understand; dropped on translation. */
const RESPONSES_ONLY = new Set([
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'max_output_tokens',
  'text',
  'reasoning',
  'previous_response_id',
  'store',
  'include',
  'truncation',
  'background',
  'conversation',
  'prompt',
  'stream_options',
  'metadata',
  'max_tool_calls',
])

/** Input items with nothing a chat upstream can take: provider-private state, hosted tools' history, tool lists. */
const SKIPPED_INPUT_ITEMS = new Set([
  'reasoning',
  'item_reference',
  'compaction',
  'additional_tools',
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
])

export interface TranslatedRequest {
  chat: Json
  /** Hosted tool types left out of the chat request (the target cannot run them). */
  droppedTools: string[]
  /** Chat tool names → the client's names, for the calls in the answer. */
  toolNames: ToolNames
}

/** The chat request, or the 400 for input a chat upstream cannot take. */
export function responsesRequestToChat(body: Json): Json | GatewayError {
  const translated = translateResponsesRequest(body)
  return translated instanceof GatewayError ? translated : translated.chat
}

export function translateResponsesRequest(body: Json): TranslatedRequest | GatewayError {
  const chat: Json = {}
  for (const [key, value] of Object.entries(body)) if (!RESPONSES_ONLY.has(key)) chat[key] = value
  const messages = inputToMessages(body.instructions, body.input)
  if (messages instanceof GatewayError) return messages
  chat.messages = messages
  const translatedTools = translateTools(body)
  if (translatedTools instanceof GatewayError) return translatedTools
  const { tools, names, dropped } = translatedTools
  if (tools.length > 0) {
    chat.tools = tools
    if (body.tool_choice !== undefined) chat.tool_choice = toolChoiceToChat(body.tool_choice, names)
  } else if (body.tool_choice === 'none') chat.tool_choice = 'none'
  if (typeof body.max_output_tokens === 'number') chat.max_completion_tokens = body.max_output_tokens
  const format = isObject(body.text) ? body.text.format : undefined
  if (isObject(format)) chat.response_format = formatToChat(format)
  if (isObject(body.reasoning) && typeof body.reasoning.effort === 'string') chat.reasoning_effort = body.reasoning.effort
  if (body.stream === true) chat.stream_options = { include_usage: true }
  // Without tools (all hosted ones dropped) chat upstreams reject parallel_tool_calls.
  if (chat.tools === undefined) delete chat.parallel_tool_calls
  return { chat, droppedTools: dropped, toolNames: names }
}

function inputToMessages(instructions: unknown, input: unknown): ChatMessage[] | GatewayError {
  const messages: ChatMessage[] = []
  if (typeof instructions === 'string' && instructions) messages.push({ role: 'system', content: instructions })
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input })
    return messages
  }
  if (!Array.isArray(input)) return messages
  for (const [i, item] of input.entries()) {
    if (!isObject(item)) return gatewayErrors.invalidRequest(`input[${i}]: expected an object`, `input[${i}]`)
    const type = item.type ?? 'message'
    switch (type) {
      case 'message': {
        const message = messageToChat(item, i)
        if (message instanceof GatewayError) return message
        messages.push(message)
        break
      }
      case 'function_call':
      case 'custom_tool_call':
        appendToolCall(messages, {
          id: String(item.call_id ?? item.id ?? `call_${i}`),
          type: 'function',
          function: {
            name: flatToolName(typeof item.namespace === 'string' ? item.namespace : undefined, String(item.name ?? '')),
            arguments: type === 'function_call' ? String(item.arguments ?? '') : JSON.stringify({ input: String(item.input ?? '') }),
          },
        })
        break
      case 'function_call_output':
      case 'custom_tool_call_output':
        messages.push({ role: 'tool', tool_call_id: String(item.call_id ?? ''), content: outputText(item.output) })
        break
      default:
        if (SKIPPED_INPUT_ITEMS.has(String(type))) break
        return gatewayErrors.invalidRequest(`input[${i}].type: '${String(type)}' items cannot be sent to this model`, `input[${i}].type`, 'unsupported_input_item')
    }
  }
  return messages
}

function messageToChat(item: Json, i: number): ChatMessage | GatewayError {
  const role = item.role === 'developer' ? 'developer' : String(item.role ?? 'user')
  if (typeof item.content === 'string') return { role, content: item.content }
  if (!Array.isArray(item.content)) return gatewayErrors.invalidRequest(`input[${i}].content: expected a string or an array of content parts`, `input[${i}].content`)
  if (role === 'assistant') {
    const text = item.content.map((p) => (isObject(p) ? String(p.text ?? p.refusal ?? '') : '')).join('')
    return { role, content: text }
  }
  const parts: Json[] = []
  for (const [j, p] of item.content.entries()) {
    const part = partToChat(p, `input[${i}].content[${j}]`)
    if (part instanceof GatewayError) return part
    parts.push(part)
  }
  return { role, content: parts }
}

function partToChat(part: unknown, where: string): Json | GatewayError {
  if (!isObject(part)) return gatewayErrors.invalidRequest(`${where}: expected an object`, where)
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(part.text ?? '') }
    case 'input_image': {
      const url = part.image_url
      if (typeof url !== 'string') return gatewayErrors.invalidRequest(`${where}.image_url: only image URLs and data URLs can be translated`, `${where}.image_url`)
      return { type: 'image_url', image_url: { url, ...(part.detail ? { detail: part.detail } : {}) } }
    }
    case 'input_file':
      return {
        type: 'file',
        file: {
          ...(part.file_id ? { file_id: part.file_id } : {}),
          ...(part.file_data ? { file_data: part.file_data } : {}),
          ...(part.filename ? { filename: part.filename } : {}),
        },
      }
    default:
      return gatewayErrors.invalidRequest(`${where}.type: '${String(part.type)}' is not supported`, `${where}.type`)
  }
}

/** Consecutive tool calls belong to one assistant turn. */
function appendToolCall(messages: ChatMessage[], call: Json): void {
  const last = messages.at(-1)
  if (last?.role === 'assistant' && (Array.isArray(last.tool_calls) || last.content === '' || last.content == null)) {
    ;((last.tool_calls as Json[] | undefined) ?? (last.tool_calls = [])).push(call)
    return
  }
  if (last?.role === 'assistant' && typeof last.content === 'string') {
    last.tool_calls = [call]
    return
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] })
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) return output.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('')
  return JSON.stringify(output ?? '')
}

function formatToChat(format: Json): Json {
  if (format.type === 'json_schema') {
    const schema: Json = { name: format.name ?? 'response', schema: format.schema }
    if (format.description !== undefined) schema.description = format.description
    if (format.strict !== undefined) schema.strict = format.strict
    return { type: 'json_schema', json_schema: schema }
  }
  return { type: String(format.type ?? 'text') }
}

/** Chat names of custom (free-form) tools, whose calls are reported back as custom tool calls. */
export function customToolNames(names: ToolNames): Set<string> {
  const custom = new Set<string>()
  for (const [flat, tool] of names) if (tool.custom) custom.add(flat)
  return custom
}
