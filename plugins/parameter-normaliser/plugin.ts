/**
 * @module Parameter normaliser (rewriter, core, on by default): adapts a request to what its target accepts, so
 * clients can send one shape everywhere. On every ingress API the requested output tokens are clamped to the
 * target model's known limit (src/models/catalog.ts, `model_output_limits` in the configuration); on chat the
 * provider's parameter rules apply too. What changed is listed in the revision's detail.
 */
import { outputLimitFor } from '../../src/models/catalog.ts'
import { applyRewrite, continueAfter } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import { parameterNormaliserManifest } from './manifest.ts'
import { clampOutputTokens, normaliseParameters } from './rules.ts'

const ENDPOINTS = new Set(['chat.completions', 'responses', 'messages'])

export const parameterNormaliser = definePlugin({
  manifest: parameterNormaliserManifest,
  create({ config: gatewayConfig }) {
    return {
      before(ctx, config) {
        if (!config.enabled || !ENDPOINTS.has(ctx.endpoint) || !ctx.target) return CONTINUE
        const target = ctx.target
        const limit = config.clamp_max_tokens ? outputLimitFor(target, gatewayConfig.model_output_limits) : undefined
        return continueAfter(
          applyRewrite(ctx, parameterNormaliserManifest.id, (body) => {
            const clamped = limit === undefined ? { body, changes: [] } : clampOutputTokens(body, limit, target.selector)
            const normalised =
              ctx.endpoint === 'chat.completions'
                ? normaliseParameters(clamped.body, target.providerType, target.model, config.drop_unsupported)
                : { body: clamped.body, changes: [] }
            const changes = [...clamped.changes, ...normalised.changes]
            if (changes.length === 0) return { unchanged: true, detail: { provider_type: target.providerType } }
            return { body: normalised.body, detail: { provider_type: target.providerType, changes } }
          }),
        )
      },
    }
  },
})
