/**
 * @module Checks the ingress body after authentication (so unauthenticated callers learn nothing about the
 * API): unreadable bodies, missing `model` / `messages`, wrong types. Each error names the offending field.
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { requestValidatorManifest } from './manifest.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'

export const requestValidator = definePlugin({
  manifest: requestValidatorManifest,
  create() {
    return {
      before(ctx) {
        if (ctx.ingressError) return respondWithError(ctx, ctx.ingressError)
        const schema = endpoint(ctx.endpoint).request
        if (!schema) return CONTINUE
        const result = schema.safeParse(ctx.body)
        if (!result.success) return respondWithError(ctx, gatewayErrors.fromZod(result.error))
        return CONTINUE
      },
    }
  },
})
