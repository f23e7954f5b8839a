/**
 * @module Usage and cost (feature `usage`). Streams ask the upstream for usage (`stream_options.include_usage`),
 * the extra chunk is hidden from clients that did not ask for it, and its usage is handed to the pipeline
 * (`ctx.hiddenStreamUsage`), which never sees that chunk. The manifest asks for priced usage: the pipeline makes
 * the request's usage record at completion (src/usage/meter.ts: the upstream's own usage, or counted with the
 * tokenizer and marked estimated, priced from the price table) and this plugin hands it to the batched writer.
 * The audit entry's usage summary comes from the same record.
 */
import { requestSlot } from '../../src/pipeline/context.ts'
import { isEventStream } from '../../src/pipeline/sse.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { usageFromOpenAI } from '../../src/pipeline/usage.ts'
import { usageMeterManifest } from './manifest.ts'
import { UsageChunkFilter } from './usage-chunk.ts'

/** Set when the gateway asked for the stream's usage chunk and the client did not: the chunk is hidden. */
const hideUsageChunkSlot = requestSlot<true>('usage-meter')

export const usageMeter = definePlugin({
  manifest: usageMeterManifest,
  create({ usage }) {
    return {
      before(ctx) {
        if (ctx.endpoint !== 'chat.completions' || !ctx.stream) return CONTINUE
        const options = (ctx.body.stream_options ?? {}) as Record<string, unknown>
        if (options.include_usage === true) return CONTINUE
        ctx.setState(hideUsageChunkSlot, true)
        ctx.body = { ...ctx.body, stream_options: { ...options, include_usage: true } }
        return CONTINUE
      },
      onResponse(ctx, response) {
        if (!ctx.state(hideUsageChunkSlot) || !response.body || !isEventStream(response)) return response
        // Applied by the pump as it reads the body (src/pipeline/run.ts): no stream stage of its own.
        ctx.streamFilter = new UsageChunkFilter((raw) => {
          ctx.hiddenStreamUsage = usageFromOpenAI(raw)
        })
        return response
      },
      onComplete(_ctx, outcome) {
        if (outcome.usageRecord) usage.record(outcome.usageRecord)
      },
    }
  },
})
