/**
 * @module Model access for managed keys (core, always on). A request is allowed when the requested name (a
 * virtual model source, selector or bare name) or the resolved target selector matches the key's
 * `allowed_models`; keys without the list, and the master key, may use every model. The model list endpoints
 * filter instead of refusing (src/http/local-endpoints.ts).
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { isModelAllowed } from '../../src/keys/model-access.ts'
import type { EndpointId } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { modelAccessManifest } from './manifest.ts'

/** Endpoints that name no model of their own; every other endpoint is checked (new ones fail closed). */
const WITHOUT_MODEL: ReadonlySet<EndpointId> = new Set(['models.list', 'models.get', 'not_found'])

export const modelAccess = definePlugin({
  manifest: modelAccessManifest,
  create() {
    return {
      before(ctx) {
        const allowed = ctx.principal?.allowedModels
        if (!allowed || WITHOUT_MODEL.has(ctx.endpoint)) return CONTINUE
        if (isModelAllowed(allowed, [ctx.requestedModel, ctx.target?.selector])) return CONTINUE
        const model = ctx.requestedModel ?? ''
        return respondWithError(ctx, gatewayErrors.forbidden(`This API key may not use the model '${model}'.`, 'model_not_allowed'))
      },
    }
  },
})
