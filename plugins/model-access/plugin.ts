/**
 * @module Model access for managed keys (core, always on). A request is allowed when the requested name (a
 * virtual model source, selector or bare name) or the resolved target selector matches the key's
 * `allowed_models`; keys without the list, and the master key, may use every model. The model list endpoints
 * filter instead of refusing (src/models/local-endpoints.ts).
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { mayUseTarget } from '../../src/keys/model-access.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'
import { modelAccessManifest } from './manifest.ts'

export const modelAccess = definePlugin({
  manifest: modelAccessManifest,
  create() {
    return {
      before(ctx) {
        const allowed = ctx.principal?.allowedModels
        // Endpoints that name no model of their own are not checked; the model list filters instead.
        if (!allowed || !endpoint(ctx.endpoint).governance.modelAccess) return CONTINUE
        if (mayUseTarget(allowed, ctx.requestedModel, ctx.target)) return CONTINUE
        const model = ctx.requestedModel ?? ''
        return respondWithError(ctx, gatewayErrors.forbidden(`This API key may not use the model '${model}'.`, 'model_not_allowed'))
      },
    }
  },
})
