/**
 * @module Model resolution (core, always on): a virtual model source maps to its target; `<provider>/<model>`
 * splits on the first `/` when the first segment is a configured provider; a bare name resolves when exactly one
 * provider offers it. Anything else is a 404 that names the model and points to /v1/models.
 */
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { virtualModelResolverManifest } from './manifest.ts'

export const virtualModelResolver = definePlugin({
  manifest: virtualModelResolverManifest,
  create({ catalog }) {
    return {
      before(ctx) {
        if (!endpoint(ctx.endpoint).governance.modelAccess) return CONTINUE
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
