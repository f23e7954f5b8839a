/**
 * @module Reads token usage from the shapes upstream answers carry (OpenAI chat and Responses, DeepSeek's cache
 * fields, Anthropic messages) into one TokenUsage.
 */
import type { TokenUsage } from './snapshots.ts'

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

export function usageFromOpenAI(raw: unknown): TokenUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const promptDetails = (u.prompt_tokens_details ?? u.input_tokens_details ?? {}) as Record<string, unknown>
  const completionDetails = (u.completion_tokens_details ?? u.output_tokens_details ?? {}) as Record<string, unknown>
  // Anthropic's input_tokens leaves out cache reads and writes, which OpenAI's prompt_tokens includes.
  const cacheRead = num(u.cache_read_input_tokens)
  const cacheWrite = num(u.cache_creation_input_tokens)
  const prompt = num(u.prompt_tokens ?? u.input_tokens) + cacheRead + cacheWrite
  const completion = num(u.completion_tokens ?? u.output_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.total_tokens) || prompt + completion,
    cached_tokens: num(promptDetails.cached_tokens ?? u.prompt_cache_hit_tokens) + cacheRead,
    cache_write_tokens: num(promptDetails.cache_write_tokens) + cacheWrite,
    reasoning_tokens: num(completionDetails.reasoning_tokens ?? completionDetails.thinking_tokens),
    estimated: false,
  }
}

/** Gemini's `usageMetadata` (the Gemini API's and Vertex AI's): thinking counts as completion, cached content is prompt. */
export function usageFromGemini(raw: unknown): TokenUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const prompt = num(u.promptTokenCount) + num(u.toolUsePromptTokenCount)
  const thoughts = num(u.thoughtsTokenCount)
  const completion = num(u.candidatesTokenCount) + thoughts
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.totalTokenCount) || prompt + completion,
    cached_tokens: num(u.cachedContentTokenCount),
    cache_write_tokens: 0,
    reasoning_tokens: thoughts,
    estimated: false,
  }
}

/** Bedrock Converse's `usage`: `inputTokens` leaves out cache reads and writes. */
export function usageFromConverse(raw: unknown): TokenUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const cacheRead = num(u.cacheReadInputTokens)
  const cacheWrite = num(u.cacheWriteInputTokens)
  const prompt = num(u.inputTokens) + cacheRead + cacheWrite
  const completion = num(u.outputTokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: 0,
    estimated: false,
  }
}
