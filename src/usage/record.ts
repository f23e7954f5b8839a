/**
 * @module One usage record per request, and the audit entry's RequestUsageSummary built from it.
 */
import type { RequestUsageSummary } from '../audit/entry.ts'
import type { TokenUsage } from '../pipeline/snapshots.ts'
import { unitUsageOf } from './units.ts'

/** The request's token counts (TokenUsage, `estimated` included) with who, what and what it cost. */
export interface UsageRecord extends TokenUsage {
  id: string
  ts: number
  key_id: string
  user_path: string
  provider_name: string
  provider_type: string
  model: string
  requested_model: string
  cost_usd: number
  /** What a cache hit or the rewriters saved, at the model's prices. */
  saved_usd: number
  rewrite_tokens_saved: number
  rewrite_cost_saved: number
  priced: boolean
  cache_hit: boolean
  /** The request's labels (docs/labels.md); absent means none. */
  labels?: string[]
}

/** Characters per token assumed when estimating how much cached text a cached-token count stands for. */
export const CHARS_PER_TOKEN = 4

export function usageSummaryOf(record: UsageRecord): RequestUsageSummary {
  return { ...summaryFromTokens(record, record.rewrite_tokens_saved, record.rewrite_cost_saved), cost_usd: record.cost_usd }
}

export function summaryFromTokens(
  usage: Pick<TokenUsage, 'prompt_tokens' | 'completion_tokens' | 'total_tokens' | 'cached_tokens' | 'cache_write_tokens' | 'unit' | 'units' | 'unit_variant'>,
  rewriteTokensSaved: number,
  rewriteCostSaved: number,
): RequestUsageSummary {
  const cached = Math.min(usage.cached_tokens, usage.prompt_tokens)
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    cached_input_tokens: cached,
    uncached_input_tokens: Math.max(0, usage.prompt_tokens - cached),
    cache_write_input_tokens: usage.cache_write_tokens,
    cached_input_ratio: usage.prompt_tokens > 0 ? cached / usage.prompt_tokens : 0,
    estimated_cached_characters: cached * CHARS_PER_TOKEN,
    rewrite_tokens_saved: rewriteTokensSaved,
    rewrite_cost_saved: rewriteCostSaved,
    ...unitUsageOf(usage),
    entries: 1,
  }
}
