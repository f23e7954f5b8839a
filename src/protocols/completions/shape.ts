/**
 * @module Legacy text completions (`/v1/completions`, what IDE code completion still uses for fill-in-the-middle):
 * native on OpenAI-family providers (the adapter's `completions`), the request as sent, `suffix` included, so a
 * provider that fills in the middle (vLLM, Ollama, DeepSeek, …) gets it. Not translated over chat: a chat model
 * answers a prompt rather than continuing it and has no `suffix`, so a provider without the API is refused with
 * 400 `unsupported_endpoint` instead of answering something else. No system prompt or tools; `prompt` and
 * `suffix` are the texts guardrails read, `choices[].text` what they read of an answer. Streams report usage
 * only when asked, in a `choices: []` chunk, like chat's; answers are cached (not replayed as streams).
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'
import { countPromptItemTokens, promptItems } from '../prompt-items.ts'
import { completionsStreamCodec } from './stream-codec.ts'

type Json = Record<string, unknown>

/** Prompt tokens: the prompt's texts and token arrays, and the suffix. */
function countPromptTokens(body: Json): Promise<number> {
  return countPromptItemTokens(promptItems(body.prompt), typeof body.suffix === 'string' ? [body.suffix] : [])
}

/** Output tokens of a `text_completion`: every choice's text. */
function countOutputTokens(answer: Json): Promise<number> {
  const choices = (Array.isArray(answer.choices) ? answer.choices : []) as Json[]
  return countTextsTokens(choices.map((c) => (typeof c?.text === 'string' ? c.text : '')))
}

export const completionsApi: ApiShape = {
  id: 'completions',
  upstream: {
    native: (adapter, provider, model) => ((adapter.speaksNatively?.('completions', provider, model) ?? true) ? adapter.completions : undefined),
    overChat: null,
    fallback: null,
  },
  streamCodec: completionsStreamCodec,
  errorBody: null,
  genAiOperation: 'text_completion',
  systemPrompt: null,
  toolResults: null,
  guardedTexts: { request: ['prompt', 'suffix'], response: ['choices'] },
  tools: null,
  promptTokens: countPromptTokens,
  // The provider parameter rules are written for chat's fields; the output limit is clamped all the same.
  parameters: { outputLimitFields: ['max_tokens'], providerRules: false },
  cache: { deliveryFields: ['stream', 'stream_options'], replayStream: null },
  usage: { units: [], streamUsageOnRequest: true, read: (reported) => usageFromOpenAI(reported), countOutputTokens, requestedUnits: null },
}
