/**
 * @module Parameter normaliser (rewriter, core, on by default): adapts a chat request to what its target
 * provider accepts, so clients can send one shape everywhere. What changed is listed in the revision's detail.
 */
import { applyRewrite } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { parameterNormaliserManifest } from './manifest.ts'
import { normaliseParameters } from './rules.ts'

export const parameterNormaliser = definePlugin({
  manifest: parameterNormaliserManifest,
  create() {
    return {
      before(ctx, config) {
        if (!config.enabled || ctx.endpoint !== 'chat.completions' || !ctx.target) return CONTINUE
        const target = ctx.target
        applyRewrite(ctx, parameterNormaliserManifest.id, (body) => {
          const { body: normalised, changes } = normaliseParameters(body, target.providerType, target.model, config.drop_unsupported)
          if (changes.length === 0) return { unchanged: true, detail: { provider_type: target.providerType } }
          return { body: normalised, detail: { provider_type: target.providerType, changes } }
        })
        return CONTINUE
      },
    }
  },
})
