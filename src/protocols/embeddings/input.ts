/**
 * @module The `input` of an embeddings request (a string, strings, a token array, token arrays) read as a list of
 * inputs: what prompt tokens it holds, and its texts for a provider that embeds text only.
 */
import { countTextsTokens } from '../../tokens/count.ts'

type Json = Record<string, unknown>

/** One input: a text, or the tokens of one (OpenAI-family providers take token ids as input). */
export type EmbeddingInput = string | readonly number[]

const isTokens = (value: unknown): value is number[] => Array.isArray(value) && value.every((t) => typeof t === 'number')

/** The request's inputs, one per embedding the answer holds; empty when `input` is none of its four forms. */
export function embeddingInputs(body: Json): EmbeddingInput[] {
  const input = body.input
  if (typeof input === 'string') return [input]
  if (!Array.isArray(input) || input.length === 0) return []
  if (isTokens(input)) return [input]
  return input.filter((item): item is EmbeddingInput => typeof item === 'string' || isTokens(item))
}

/** The inputs as texts; undefined when one is a token array (a provider that embeds text cannot take it). */
export function embeddingTexts(inputs: readonly EmbeddingInput[]): string[] | undefined {
  return inputs.every((item) => typeof item === 'string') ? (inputs as string[]) : undefined
}

/** Prompt tokens of an embeddings request: its texts counted, its token arrays by their length. */
export async function countEmbeddingPromptTokens(body: Json): Promise<number> {
  const inputs = embeddingInputs(body)
  const texts = inputs.filter((item): item is string => typeof item === 'string')
  const tokens = inputs.reduce((sum, item) => sum + (typeof item === 'string' ? 0 : item.length), 0)
  return tokens + (await countTextsTokens(texts))
}
