/**
 * @module Token counting with a real tokenizer (o200k_base, the encoding of current OpenAI models), used where
 * an upstream reports no usage and to measure what rewriters save. Counts for other vendors' models are
 * estimates: their tokenizers differ by a few percent.
 */
import { countO200kTokens as countTokens } from './tokenizer.ts'
import { contentText } from '../protocols/content-text.ts'

type Json = Record<string, unknown>

/** Per-message framing overhead in the chat format (role and separators). */
const MESSAGE_OVERHEAD = 3

export function countTextTokens(text: string): number {
  return text ? countTokens(text) : 0
}


/** Prompt tokens of a chat request: message texts, tool calls and tool definitions. */
export function countChatPromptTokens(body: Json): number {
  let total = 0
  for (const m of (Array.isArray(body.messages) ? body.messages : []) as Json[]) {
    total += MESSAGE_OVERHEAD + countTextTokens(contentText(m?.content))
    if (Array.isArray(m?.tool_calls)) total += countTextTokens(JSON.stringify(m.tool_calls))
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) total += countTextTokens(JSON.stringify(body.tools))
  return total
}

/** Completion tokens of a `chat.completion`: texts and tool calls of every choice. */
export function countCompletionTokens(completion: Json): number {
  let total = 0
  for (const c of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const message = (c?.message ?? {}) as Json
    total += countTextTokens(contentText(message.content))
    if (typeof message.reasoning_content === 'string') total += countTextTokens(message.reasoning_content)
    if (Array.isArray(message.tool_calls)) total += countTextTokens(JSON.stringify(message.tool_calls))
  }
  return total
}
