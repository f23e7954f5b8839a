/**
 * @module Usage and cost (feature `usage`). Streams ask the upstream for usage (`stream_options.include_usage`),
 * the extra chunk is hidden from clients that did not ask for it. When the request completes, one usage record is
 * made from the upstream's own usage — or, when it sent none, counted with the tokenizer and marked estimated —
 * priced from the price table, and handed to the batched writer; the audit entry's usage summary comes from it.
 * Cache hits cost nothing; what they saved is recorded.
 */
import { requestSlot, type RequestContext } from '../../src/pipeline/context.ts'
import type { TokenUsage } from '../../src/pipeline/snapshots.ts'
import { CONTINUE, definePlugin, type Outcome } from '../../src/pipeline/types.ts'
import { usageFromOpenAI } from '../../src/pipeline/usage.ts'
import { countChatPromptTokens, countCompletionTokens } from '../../src/tokens/count.ts'
import type { UsageRecord } from '../../src/usage/record.ts'
import { usageMeterManifest } from './manifest.ts'
import { withoutUsageChunk } from './usage-chunk.ts'

/** Set when the gateway asked for the stream's usage chunk and the client did not: the chunk is hidden. */
/** Set when the usage chunk is hidden from the client; holds its usage, which the pump after this plugin never sees. */
const hiddenUsageSlot = requestSlot<{ usage?: TokenUsage }>('usage-meter')

const METERED = new Set(['chat.completions', 'responses', 'messages'])

/** Usage counted by the gateway when the upstream reported none. */
export function estimateUsage(ctx: RequestContext, outcome: Outcome): TokenUsage {
  const prompt = countChatPromptTokens(ctx.body)
  const body = outcome.responseBody as Record<string, unknown> | undefined
  const completion = body ? countCompletionTokens(body) : Math.ceil(outcome.bytesOut / 4)
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated: true }
}

export const usageMeter = definePlugin({
  manifest: usageMeterManifest,
  create({ usage }) {
    return {
      prepare(ctx) {
        if (METERED.has(ctx.endpoint)) ctx.captureUsage = true
      },
      before(ctx) {
        if (ctx.endpoint !== 'chat.completions' || !ctx.stream) return CONTINUE
        const options = (ctx.body.stream_options ?? {}) as Record<string, unknown>
        if (options.include_usage === true) return CONTINUE
        ctx.setState(hiddenUsageSlot, {})
        ctx.body = { ...ctx.body, stream_options: { ...options, include_usage: true } }
        return CONTINUE
      },
      onResponse(ctx, response) {
        const hidden = ctx.state(hiddenUsageSlot)
        if (!hidden || !response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response
        const body = withoutUsageChunk(response.body, (raw) => {
          hidden.usage = usageFromOpenAI(raw)
        })
        return new Response(body, { status: response.status, headers: response.headers })
      },
      onComplete(ctx, outcome) {
        if (!METERED.has(ctx.endpoint) || !ctx.target || outcome.status >= 400 || (outcome.clientAborted && !outcome.usage && !ctx.state(hiddenUsageSlot)?.usage)) return
        const tokens = outcome.usage ?? ctx.state(hiddenUsageSlot)?.usage ?? estimateUsage(ctx, outcome)
        const counts = { prompt: tokens.prompt_tokens, cachedPrompt: tokens.cached_tokens, cacheWrite: tokens.cache_write_tokens, completion: tokens.completion_tokens }
        const priced = usage.prices.cost(ctx.target, counts)
        const rewriteTokensSaved = ctx.revisions.reduce((sum, r) => sum + (r.tokens_saved || 0), 0)
        const inputPrice = usage.prices.priceFor(ctx.target)?.input ?? 0
        const cacheHit = ctx.cacheType !== ''
        const record: UsageRecord = {
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
          cost_usd: cacheHit ? 0 : priced.costUsd,
          saved_usd: cacheHit ? priced.costUsd : 0,
          rewrite_tokens_saved: rewriteTokensSaved,
          rewrite_cost_saved: (rewriteTokensSaved * inputPrice) / 1_000_000,
          priced: priced.priced,
          estimated: tokens.estimated,
          cache_hit: cacheHit,
          labels: ctx.labels,
        }
        ctx.usageRecord = record
        usage.record(record)
      },
    }
  },
})
