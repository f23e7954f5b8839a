/**
 * @module The request's usage, priced: made once by the pipeline at completion (src/pipeline/run.ts) for
 * pipelines whose plugins asked for priced usage, and handed to every `onComplete` in `Outcome.usageRecord`.
 * The upstream's own usage is used when it sent one; otherwise the tokens are counted and marked estimated.
 * Cache hits cost nothing; what they saved is recorded.
 */
import type { RequestContext } from '../pipeline/context.ts'
import type { TokenUsage } from '../pipeline/snapshots.ts'
import type { Outcome } from '../pipeline/types.ts'
import { estimatedPromptTokens } from '../limits/request-estimate.ts'
import { endpoint } from '../protocols/endpoints.ts'
import type { PriceTable } from './pricing.ts'
import type { UsageRecord } from './record.ts'
import { unitUsageOf } from './units.ts'

/** Whether the request's usage must be counted by the gateway: billable, and the upstream reported none. */
export function needsEstimatedUsage(ctx: RequestContext, outcome: Outcome): boolean {
  return !outcome.usage && !!ctx.target && outcome.status < 400 && !outcome.clientAborted && !ctx.batchLine?.handedOver
}

/**
 * Usage counted by the gateway (on the tokenizer thread) when the upstream reported none, as the endpoint's API
 * counts (`promptTokens`, `usage.countOutputTokens` of its shape), with the units of work the request asked for.
 */
export async function estimateUsage(ctx: RequestContext, outcome: Outcome): Promise<TokenUsage> {
  const { api } = endpoint(ctx.endpoint)
  // The answer before the output hooks when only that was captured (a cache's workflow): the tokens generated.
  const body = (outcome.responseBody ?? outcome.routeAnswer) as Record<string, unknown> | undefined
  // Audio passed through in bytes has no text to count; any other answer without a document is counted by its bytes.
  const output = body && typeof body === 'object' && api.usage ? api.usage.countOutputTokens(body) : outcome.answeredInBytes ? 0 : Math.ceil(outcome.bytesOut / 4)
  const [prompt, completion] = await Promise.all([estimatedPromptTokens(api, ctx.body), output])
  const units = api.usage?.requestedUnits?.(ctx.body)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cached_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    ...units,
    estimated: true,
  }
}

/**
 * The priced usage record of a finished request, or undefined when it used nothing billable. `estimated` is
 * {@link estimateUsage}'s answer, needed when {@link needsEstimatedUsage} says so.
 */
export function meterUsage(ctx: RequestContext, outcome: Outcome, prices: PriceTable, estimated?: TokenUsage): UsageRecord | undefined {
  if (!ctx.target || outcome.status >= 400 || (outcome.clientAborted && !outcome.usage) || ctx.batchLine?.handedOver) return undefined
  const tokens = outcome.usage ?? estimated
  if (!tokens) throw new Error('meterUsage: the upstream reported no usage and no estimate was given')
  const counts = {
    prompt: tokens.prompt_tokens,
    cachedPrompt: tokens.cached_tokens,
    cacheWrite: tokens.cache_write_tokens,
    completion: tokens.completion_tokens,
    unitUsage: unitUsageOf(tokens),
  }
  const priced = ctx.batchLine?.batchPriced ? prices.batchCost(ctx.target, counts) : prices.cost(ctx.target, counts)
  const rewriteTokensSaved = ctx.revisions.reduce((sum, r) => sum + (r.tokens_saved || 0), 0)
  const inputPrice = prices.priceFor(ctx.target)?.input ?? 0
  const cacheHit = ctx.cacheType !== ''
  return {
    id: ctx.id,
    ts: ctx.startedAt.getTime(),
    key_id: ctx.principal?.keyId ?? ctx.principal?.id ?? '',
    user_path: ctx.userPath ?? '/',
    provider_name: ctx.target.providerName,
    provider_type: ctx.target.providerType,
    model: ctx.target.model,
    requested_model: ctx.requestedModel ?? '',
    prompt_tokens: tokens.prompt_tokens,
    completion_tokens: tokens.completion_tokens,
    total_tokens: tokens.total_tokens,
    cached_tokens: tokens.cached_tokens,
    cache_write_tokens: tokens.cache_write_tokens,
    reasoning_tokens: tokens.reasoning_tokens,
    ...counts.unitUsage,
    cost_usd: cacheHit ? 0 : priced.costUsd,
    saved_usd: cacheHit ? priced.costUsd : 0,
    rewrite_tokens_saved: rewriteTokensSaved,
    rewrite_cost_saved: (rewriteTokensSaved * inputPrice) / 1_000_000,
    priced: priced.priced,
    estimated: tokens.estimated,
    cache_hit: cacheHit,
    labels: ctx.labels,
  }
}
