/**
 * @module Embeddings (`/v1/embeddings`): OpenAI's API, served natively by OpenAI-family providers (the adapter's
 * `embeddings`) and translated by those that embed in their own shape (Gemini's `embedContent`); a provider without
 * it (Anthropic) is refused with 400 `unsupported_endpoint`: a chat model cannot embed. The input is text a model
 * reads (guardrails scan it), nothing is generated (no output tokens, no stream), and answers are cached: the same
 * input, model, dimensions and encoding always embed the same way, so every field is part of the key.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import type { ApiShape } from '../api-shape.ts'
import { countEmbeddingPromptTokens } from './input.ts'

export const embeddingsApi: ApiShape = {
  id: 'embeddings',
  upstream: { native: (adapter) => adapter.embeddings, overChat: null, fallback: null },
  streamCodec: null,
  errorBody: null,
  genAiOperation: 'embeddings',
  systemPrompt: null,
  toolResults: null,
  guardedTexts: { request: ['input'], response: [] },
  tools: null,
  promptTokens: countEmbeddingPromptTokens,
  parameters: null,
  cache: { deliveryFields: [], replayStream: null },
  usage: {
    units: [],
    streamUsageOnRequest: false,
    read: (reported) => usageFromOpenAI(reported),
    countOutputTokens: () => Promise.resolve(0),
    requestedUnits: null,
  },
}
