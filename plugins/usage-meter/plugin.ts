/**
 * @module Usage and cost (feature `usage`). Streams of an API that reports usage only when asked
 * (`streamUsageOnRequest` of its shape: chat) ask the upstream for it (`stream_options.include_usage`),
 * the extra chunk is hidden from clients that did not ask for it, and its usage is handed to the pipeline
 * (`ctx.hiddenStreamUsage`), which never sees that chunk. The manifest asks for priced usage: the pipeline makes
 * the request's usage record at completion (src/usage/meter.ts: the upstream's own usage, or counted with the
 * tokenizer and marked estimated, priced from the price table) and this plugin hands it to the batched writer.
 * The audit entry's usage summary comes from the same record.
 */
import { requestSlot } from '../../src/pipeline/context.ts'
import type { UsageReading } from '../../src/protocols/api-shape.ts'
import { isEventStream } from '../../src/pipeline/sse.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { usageMeterManifest } from './manifest.ts'
import { UsageChunkFilter } from './usage-chunk.ts'

/** Set when the gateway asked for the stream's usage chunk and the client did not: the chunk is hidden, its usage read so. */
const hideUsageChunkSlot = requestSlot<UsageReading>('usage-meter')

export const usageMeter = definePlugin({
  manifest: usageMeterManifest,
  create({ usage }) {
    return {
      before(ctx) {
        const usage = endpoint(ctx.endpoint).api.usage
        if (!ctx.stream || !usage?.streamUsageOnRequest) return CONTINUE
        const options = (ctx.body.stream_options ?? {}) as Record<string, unknown>
        if (options.include_usage === true) return CONTINUE
        ctx.setState(hideUsageChunkSlot, usage)
        ctx.body = { ...ctx.body, stream_options: { ...options, include_usage: true } }
        return CONTINUE
      },
      onResponse(ctx, response) {
        const usage = ctx.state(hideUsageChunkSlot)
        if (!usage || !response.body || !isEventStream(response)) return response
        // Applied by the pump as it reads the body (src/pipeline/run.ts): no stream stage of its own.
        ctx.streamFilter = new UsageChunkFilter((raw) => {
          ctx.hiddenStreamUsage = usage.read(raw, ctx.body)
        })
        return response
      },
      onComplete(_ctx, outcome) {
        if (outcome.usageRecord) usage.record(outcome.usageRecord)
      },
    }
  },
})
