/**
 * @module Parameter normaliser (rewriter, core, on by default): adapts a request to what its target accepts, so
 * clients can send one shape everywhere. On every API with output-limit fields (`parameters` of its shape,
 * src/protocols/api-shape.ts) the requested output tokens are clamped to the target model's known limit
 * (src/models/catalog.ts, `model_output_limits` in the configuration); on an API whose fields the provider's
 * parameter rules are written for (chat) those rules apply too. What changed is listed in the revision's detail. The body is prepared for
 * the resolved target; a failover attempt to another target gets the body this plugin would have made for that
 * one, with a revision of its own naming the attempt (src/pipeline/target-adaptation.ts).
 */
import type { GatewayConfig } from '../../src/config/schema.ts'
import { outputLimitFor } from '../../src/models/catalog.ts'
import { applyRewrite, continueAfter } from '../../src/pipeline/rewrite.ts'
import { CONTINUE, definePlugin } from '../../src/pipeline/types.ts'
import type { ParameterFields } from '../../src/protocols/api-shape.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import type { ResolvedTarget } from '../../src/providers/types.ts'
import { type ParameterNormaliserConfig, parameterNormaliserManifest } from './manifest.ts'
import { clampOutputTokens, GOVERNED_FIELDS, type NormaliseOutcome, normaliseParameters } from './rules.ts'

/** The body as this plugin makes it for `target`, from the body it was given. */
function normaliseFor(
  fields: ParameterFields,
  body: Record<string, unknown>,
  target: ResolvedTarget,
  config: ParameterNormaliserConfig,
  limits: GatewayConfig['model_output_limits'],
): NormaliseOutcome {
  const limit = config.clamp_max_tokens ? outputLimitFor(target, limits) : undefined
  const clamped = limit === undefined ? { body, changes: [] } : clampOutputTokens(body, fields.outputLimitFields, limit, target.selector)
  const normalised = fields.providerRules ? normaliseParameters(clamped.body, target.providerType, target.model, config.drop_unsupported) : { body: clamped.body, changes: [] }
  return { body: normalised.body, changes: [...clamped.changes, ...normalised.changes] }
}

export const parameterNormaliser = definePlugin({
  manifest: parameterNormaliserManifest,
  create({ config: gatewayConfig }) {
    const limits = gatewayConfig.model_output_limits
    return {
      before(ctx, config) {
        const row = endpoint(ctx.endpoint)
        const fields = row.api.parameters
        // A verbatim row sends the client's bytes, not the body: nothing here would reach the upstream.
        if (!config.enabled || !fields || row.verbatim || !ctx.target) return CONTINUE
        const target = ctx.target
        const given = ctx.body
        ctx.targetAdaptation = {
          rewriter: parameterNormaliserManifest.id,
          preparedFor: target.selector,
          // The fields this plugin rules come from the body it was given, made for the other target; the rest is
          // the body as it now is (later stages may have added to it).
          adapt(current, other) {
            const { body, changes } = normaliseFor(fields, given, other, config, limits)
            let adapted: Record<string, unknown> | undefined
            for (const field of GOVERNED_FIELDS) {
              if (body[field] === current[field]) continue
              adapted ??= { ...current }
              if (body[field] === undefined) delete adapted[field]
              else adapted[field] = body[field]
            }
            return adapted && { body: adapted, detail: { provider_type: other.providerType, changes } }
          },
        }
        return continueAfter(
          applyRewrite(ctx, parameterNormaliserManifest.id, (body) => {
            const { body: normalised, changes } = normaliseFor(fields, body, target, config, limits)
            if (changes.length === 0) return { unchanged: true, detail: { provider_type: target.providerType } }
            return { body: normalised, detail: { provider_type: target.providerType, changes } }
          }),
        )
      },
    }
  },
})
