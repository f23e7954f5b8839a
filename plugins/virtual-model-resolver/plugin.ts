/**
 * @module Model resolution (core, always on): a virtual model source maps to its target; `<provider>/<model>`
 * splits on the first `/` when the first segment is a configured provider; a bare name resolves when exactly one
 * provider offers it. Anything else is a 404 that names the model and points to /v1/models.
 */
import type { EndpointId } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { virtualModelResolverManifest } from './manifest.ts'

/** Endpoints whose body names a model to route to. */
const ROUTED: ReadonlySet<EndpointId> = new Set(['chat.completions', 'responses', 'messages', 'messages.count_tokens'])

export const virtualModelResolver = definePlugin({
  manifest: virtualModelResolverManifest,
  create({ catalog }) {
    return {
      before(ctx) {
        if (!ROUTED.has(ctx.endpoint)) return CONTINUE
        const resolution = catalog.resolve(ctx.requestedModel!)
        if (!resolution.ok) return respondWithError(ctx, resolution.error)
        ctx.target = resolution.target
        ctx.aliasUsed = resolution.aliasUsed
        ctx.alternativeTargets = resolution.alternatives
        return CONTINUE
      },
    }
  },
})
