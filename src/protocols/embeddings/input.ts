/**
 * @module The `input` of an embeddings request read as a list of inputs (src/protocols/prompt-items.ts): what prompt
 * tokens it holds, and its texts for a provider that embeds text only.
 */
import { countPromptItemTokens, type PromptItem, promptItems } from '../prompt-items.ts'

type Json = Record<string, unknown>

/** The request's inputs, one per embedding the answer holds; empty when `input` is none of its four forms. */
export function embeddingInputs(body: Json): PromptItem[] {
  return promptItems(body.input)
}

/** The inputs as texts; undefined when one is a token array (a provider that embeds text cannot take it). */
export function embeddingTexts(inputs: readonly PromptItem[]): string[] | undefined {
  return inputs.every((item) => typeof item === 'string') ? (inputs as string[]) : undefined
}

/** Prompt tokens of an embeddings request: its texts counted, its token arrays by their length. */
export function countEmbeddingPromptTokens(body: Json): Promise<number> {
  return countPromptItemTokens(embeddingInputs(body))
}
