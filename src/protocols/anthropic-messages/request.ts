/**
 * @module Anthropic Messages request → Chat Completions request, for serving `/v1/messages` from any provider.
 * `system` becomes the first message, and a `role: "system"` message inside `messages` (Anthropic's
 * mid-conversation system message, sent by Claude Code) a chat system message at its position; `tool_result`
 * blocks become `tool` messages placed ahead of the rest of their user turn; assistant `tool_use` blocks become `tool_calls`; base64 images and PDFs become data URLs.
 * What chat has no place for is dropped: `thinking` (settings and history blocks), `cache_control`, `top_k`,
 * server tools (web search, code execution…), images inside tool results, `is_error`.
 */
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'

type Json = Record<string, unknown>

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** Text of a `system` value or a `tool_result` content: a string or text blocks. */
export function blocksText(content: unknown, separator = '\n'): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return (content as Json[])
    .filter((b) => b?.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join(separator)
}

function dataUrl(source: Json): string | undefined {
  if (source.type === 'base64' && typeof source.data === 'string') return `data:${str(source.media_type) || 'application/octet-stream'};base64,${source.data}`
  return undefined
}

/** One user content block as a chat content part, or undefined when chat cannot carry it. */
function userPart(block: Json): Json | undefined {
  const source = (block.source ?? {}) as Json
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? { type: 'text', text: block.text } : undefined
    case 'image': {
      const url = source.type === 'url' ? str(source.url) : dataUrl(source)
      return url ? { type: 'image_url', image_url: { url } } : undefined
    }
    case 'document': {
      if (source.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data }
      const url = dataUrl(source)
      return url ? { type: 'file', file: { filename: str(block.title) || 'document.pdf', file_data: url } } : undefined
    }
    default:
      return undefined
  }
}

/** A single text part is sent as a plain string: the form every OpenAI-compatible server accepts. */
function chatContent(parts: Json[]): string | Json[] {
  return parts.length === 1 && parts[0]!.type === 'text' ? (parts[0]!.text as string) : parts
}

function toolArguments(input: unknown): string {
  return JSON.stringify(input ?? {})
}

function userMessages(content: unknown): Json[] {
  if (typeof content === 'string') return [{ role: 'user', content }]
  if (!Array.isArray(content)) return []
  const tools: Json[] = []
  const parts: Json[] = []
  for (const block of content as Json[]) {
    if (block?.type === 'tool_result') tools.push({ role: 'tool', tool_call_id: str(block.tool_use_id), content: blocksText(block.content) })
    else {
      const part = block ? userPart(block) : undefined
      if (part) parts.push(part)
    }
  }
  // Chat wants each tool result right after the assistant turn that called it.
  return parts.length > 0 ? [...tools, { role: 'user', content: chatContent(parts) }] : tools
}

function assistantMessage(content: unknown): Json | undefined {
  if (typeof content === 'string') return { role: 'assistant', content }
  if (!Array.isArray(content)) return undefined
  const texts: string[] = []
  const toolCalls: Json[] = []
  for (const block of content as Json[]) {
    if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text)
    else if (block?.type === 'tool_use') toolCalls.push({ id: str(block.id), type: 'function', function: { name: str(block.name), arguments: toolArguments(block.input) } })
  }
  if (texts.length === 0 && toolCalls.length === 0) return undefined
  const message: Json = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null }
  if (toolCalls.length > 0) message.tool_calls = toolCalls
  return message
}

/**
 * Anthropic accepts only text in a mid-conversation system message; chat system messages are text too. Anything
 * else is refused in Anthropic's words ("role 'system' … not supported"), which Claude Code recognises and answers
 * by retrying without system messages.
 */
function systemMessage(content: unknown, index: number): Json | GatewayError | undefined {
  if (Array.isArray(content)) {
    const j = (content as Json[]).findIndex((b) => b?.type !== 'text')
    if (j >= 0) {
      const param = `messages.${index}.content.${j}.type`
      return gatewayErrors.invalidRequest(`${param}: '${String((content as Json[])[j]?.type)}' blocks in role 'system' messages are not supported; only text is`, param)
    }
  }
  const text = blocksText(content, '\n\n')
  return text ? { role: 'system', content: text } : undefined
}

/** Custom tools only: server tools (typed `web_search_…`, `bash_…`, …) run at Anthropic and mean nothing elsewhere. */
function chatTools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) return []
  return (
    (tools as Json[])
      // Deferred tools are loaded by Anthropic's tool search only when the model asks for them; a chat model would
      // see a placeholder it cannot use.
      .filter((t) => t && typeof t.name === 'string' && (t.type === undefined || t.type === null || t.type === 'custom') && t.defer_loading !== true)
      .map((t) => {
        const fn: Json = { name: t.name, parameters: t.input_schema ?? { type: 'object', properties: {} } }
        if (typeof t.description === 'string') fn.description = t.description
        return { type: 'function', function: fn }
      })
  )
}

function chatToolChoice(choice: unknown): unknown {
  const c = (choice ?? {}) as Json
  switch (c.type) {
    case 'auto':
      return 'auto'
    case 'any':
      return 'required'
    case 'none':
      return 'none'
    case 'tool':
      return { type: 'function', function: { name: str(c.name) } }
    default:
      return undefined
  }
}

/** The chat request, or the 400 for what chat cannot carry (non-text blocks in a system message). */
export function messagesRequestToChat(body: Json): Json | GatewayError {
  const messages: Json[] = []
  const system = blocksText(body.system, '\n\n')
  if (system) messages.push({ role: 'system', content: system })
  for (const [i, m] of ((Array.isArray(body.messages) ? body.messages : []) as Json[]).entries()) {
    if (m?.role === 'user') messages.push(...userMessages(m.content))
    else if (m?.role === 'assistant' || m?.role === 'system') {
      const message = m.role === 'assistant' ? assistantMessage(m.content) : systemMessage(m.content, i)
      if (message instanceof GatewayError) return message
      if (message) messages.push(message)
    }
  }

  const chat: Json = { model: body.model, messages }
  if (typeof body.max_tokens === 'number') chat.max_completion_tokens = body.max_tokens
  if (typeof body.temperature === 'number') chat.temperature = body.temperature
  if (typeof body.top_p === 'number') chat.top_p = body.top_p
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences
  const userId = (body.metadata as Json | undefined)?.user_id
  if (typeof userId === 'string') chat.user = userId
  // Usage arrives in the chat stream's last chunk only when asked for; the Anthropic stream reports it at the end.
  if (body.stream === true) Object.assign(chat, { stream: true, stream_options: { include_usage: true } })

  const tools = chatTools(body.tools)
  if (tools.length > 0) {
    chat.tools = tools
    const choice = chatToolChoice(body.tool_choice)
    if (choice !== undefined) chat.tool_choice = choice
    if ((body.tool_choice as Json | undefined)?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false
  }

  const format = ((body.output_config as Json | undefined)?.format ?? undefined) as Json | undefined
  if (format?.type === 'json_schema' && typeof format.schema === 'object') {
    chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } }
  }
  return chat
}
