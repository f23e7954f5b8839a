/**
 * @module Token counting with a real tokenizer (o200k_base, the encoding of current OpenAI models), used where
 * an upstream reports no usage, to price limits before a call and to measure what rewriters save. Counts for
 * other vendors' models are estimates: their tokenizers differ by a few percent.
 *
 * The texts are gathered here, on the caller's thread (linear and cheap); the encoding runs on the tokenizer
 * thread (count-thread.ts), so no count blocks the thread that serves requests, and the tables are loaded only
 * when a gateway first counts. Counts are bounded there as well (encode.ts, docs/security.md).
 */
import { contentText } from '../protocols/content-text.ts'
import { countOnThread } from './count-thread.ts'

type Json = Record<string, unknown>

/** Per-message framing overhead in the chat format (role and separators). */
const MESSAGE_OVERHEAD = 3

/** Tokens of several texts together (exact for ordinary sizes; an even sample past the thread's time budget). */
export function countTextsTokens(texts: readonly string[]): Promise<number> {
  const nonEmpty = texts.filter((t) => t.length > 0)
  return nonEmpty.length === 0 ? Promise.resolve(0) : countOnThread(nonEmpty)
}

export function countTextTokens(text: string): Promise<number> {
  return countTextsTokens([text])
}

/** Prompt tokens of a chat request: message texts, tool calls and tool definitions. */
export async function countChatPromptTokens(body: Json): Promise<number> {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Json[]
  const texts: string[] = []
  for (const m of messages) {
    texts.push(contentText(m?.content))
    if (Array.isArray(m?.tool_calls)) texts.push(JSON.stringify(m.tool_calls))
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) texts.push(JSON.stringify(body.tools))
  return messages.length * MESSAGE_OVERHEAD + (await countTextsTokens(texts))
}

/** Completion tokens of a `chat.completion`: texts and tool calls of every choice. */
export function countCompletionTokens(completion: Json): Promise<number> {
  const texts: string[] = []
  for (const c of (Array.isArray(completion.choices) ? completion.choices : []) as Json[]) {
    const message = (c?.message ?? {}) as Json
    texts.push(contentText(message.content))
    if (typeof message.reasoning_content === 'string') texts.push(message.reasoning_content)
    if (Array.isArray(message.tool_calls)) texts.push(JSON.stringify(message.tool_calls))
  }
  return countTextsTokens(texts)
}
