/**
 * @module Moderations (`/v1/moderations`): OpenAI's classifier of text and images, served by providers that speak it
 * natively. The input is what is being judged, so nothing rewrites or masks it (no guardrails, no system prompt);
 * its texts are counted for limits and usage (the answer reports no usage; OpenAI does not charge for it).
 */
import { contentText } from '../content-text.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'

/** The texts of a moderation input: a string, strings, or parts of which `text` parts carry text (images none). */
export function moderationTexts(input: unknown): string[] {
  if (typeof input === 'string') return [input]
  if (!Array.isArray(input)) return []
  return input.map((item) => (typeof item === 'string' ? item : contentText([item]))).filter((text) => text.length > 0)
}

export const moderationsApi: ApiShape = {
  id: 'moderations',
  upstream: { native: (adapter) => adapter.moderations, overChat: null, fallback: null },
  streamCodec: null,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: null,
  tools: null,
  promptTokens: (body) => countTextsTokens(moderationTexts(body.input)),
  parameters: null,
  cache: null,
  usage: {
    units: [],
    streamUsageOnRequest: false,
    // The answer carries no usage: the gateway counts the input (an estimate, free at OpenAI's prices).
    read: () => undefined,
    countOutputTokens: async () => 0,
    requestedUnits: null,
  },
}
