/**
 * @module Where the operator's system prompt goes in each API (the shapes' `systemPrompt`). Chat: the first system/developer
 * message. Responses: `instructions` (the API's system prompt; a previous response's instructions are not carried
 * over, so every request gets it). Anthropic Messages: `system`, a string or text blocks (blocks are kept as they are,
 * with their cache_control, and the operator text is a block of its own). `override` also drops the system and
 * developer messages inside the conversation.
 */
import type { SystemPromptMode } from './api-shape.ts'
import { contentText } from './content-text.ts'

type Json = Record<string, unknown>
type Message = Json & { role?: string }

const joined = (prompt: string, existing: string, mode: SystemPromptMode) => (!existing ? prompt : mode === 'prepend' ? `${prompt}\n\n${existing}` : `${existing}\n\n${prompt}`)
const isSystemRole = (item: unknown) => typeof item === 'object' && item !== null && ((item as Message).role === 'system' || (item as Message).role === 'developer')

export function withSystemPrompt(messages: Message[], prompt: string, mode: SystemPromptMode): Message[] {
  if (mode === 'override') return [{ role: 'system', content: prompt }, ...messages.filter((m) => !isSystemRole(m))]
  const first = messages.findIndex(isSystemRole)
  if (first < 0) return [{ role: 'system', content: prompt }, ...messages]
  const merged = joined(prompt, contentText(messages[first]!.content), mode)
  return messages.map((m, i) => (i === first ? { ...m, content: merged } : m))
}

/** A chat body with the prompt among its messages; undefined when it has no message list to put it in. */
export function chatWithSystemPrompt(body: Json, prompt: string, mode: SystemPromptMode): Json | undefined {
  return Array.isArray(body.messages) ? { ...body, messages: withSystemPrompt(body.messages as Message[], prompt, mode) } : undefined
}

export function responsesWithSystemPrompt(body: Json, prompt: string, mode: SystemPromptMode): Json {
  if (mode === 'override') {
    const input = Array.isArray(body.input) ? body.input.filter((item) => !isSystemRole(item)) : body.input
    return { ...body, instructions: prompt, input }
  }
  return { ...body, instructions: joined(prompt, typeof body.instructions === 'string' ? body.instructions : '', mode) }
}

export function messagesWithSystemPrompt(body: Json, prompt: string, mode: SystemPromptMode): Json {
  if (mode === 'override') {
    const messages = Array.isArray(body.messages) ? body.messages.filter((m) => (m as Message)?.role !== 'system') : body.messages
    return { ...body, system: prompt, messages }
  }
  if (Array.isArray(body.system) && body.system.length > 0) {
    const block = { type: 'text', text: prompt }
    return { ...body, system: mode === 'prepend' ? [block, ...body.system] : [...body.system, block] }
  }
  return { ...body, system: joined(prompt, typeof body.system === 'string' ? body.system : '', mode) }
}
