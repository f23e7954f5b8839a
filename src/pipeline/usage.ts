/**
 * @module Reads token usage from the shapes upstream answers carry (OpenAI chat and Responses, DeepSeek's cache
 * fields) into one TokenUsage.
 */
import type { TokenUsage } from './snapshots.ts'

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

export function usageFromOpenAI(raw: unknown): TokenUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const promptDetails = (u.prompt_tokens_details ?? u.input_tokens_details ?? {}) as Record<string, unknown>
  const completionDetails = (u.completion_tokens_details ?? u.output_tokens_details ?? {}) as Record<string, unknown>
  const prompt = num(u.prompt_tokens ?? u.input_tokens)
  const completion = num(u.completion_tokens ?? u.output_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.total_tokens) || prompt + completion,
    cached_tokens: num(promptDetails.cached_tokens ?? u.prompt_cache_hit_tokens),
    cache_write_tokens: num(promptDetails.cache_write_tokens),
    reasoning_tokens: num(completionDetails.reasoning_tokens),
    estimated: false,
  }
}
