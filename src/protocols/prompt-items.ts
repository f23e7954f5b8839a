/**
 * @module A field that OpenAI's embeddings `input` and legacy completions `prompt` share: a string, strings, a token
 * array or token arrays, read as a list of items (each a text or the token ids of one), and its prompt tokens.
 */
import { countTextsTokens } from '../tokens/count.ts'

/** One item: a text, or the token ids of one (OpenAI-family providers take token ids as input). */
export type PromptItem = string | readonly number[]

const isTokens = (value: unknown): value is number[] => Array.isArray(value) && value.every((t) => typeof t === 'number')

/** The items of `value`, in order; empty when it is none of the four forms. */
export function promptItems(value: unknown): PromptItem[] {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value) || value.length === 0) return []
  if (isTokens(value)) return [value]
  return value.filter((item): item is PromptItem => typeof item === 'string' || isTokens(item))
}

/** Tokens of the items and of `texts` besides: texts counted by the tokenizer, token arrays by their length. */
export async function countPromptItemTokens(items: readonly PromptItem[], texts: readonly string[] = []): Promise<number> {
  const strings = [...items.filter((item): item is string => typeof item === 'string'), ...texts]
  const tokens = items.reduce((sum, item) => sum + (typeof item === 'string' ? 0 : item.length), 0)
  return tokens + (await countTextsTokens(strings))
}
