/**
 * @module Checks the ingress body after authentication (so unauthenticated callers learn nothing about the
 * API): unreadable bodies, missing `model` / `messages`, wrong types, arrays over their bounds. Each error names
 * the offending field; the check stops at the first problem, so a body of a million bad elements costs one.
 */
import { validationError } from '../../src/errors/validation-error.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { requestValidatorManifest } from './manifest.ts'
import { endpoint } from '../../src/protocols/endpoints.ts'

export const requestValidator = definePlugin({
  manifest: requestValidatorManifest,
  create() {
    return {
      before(ctx) {
        if (ctx.ingressError) return respondWithError(ctx, ctx.ingressError)
        const row = endpoint(ctx.endpoint)
        const schema = row.request
        // A streamed body is not read yet: the row's own answer checks its fields as they arrive (a file upload).
        if (!schema || row.body === 'stream') return CONTINUE
        const error = validationError(schema, ctx.body)
        return error ? respondWithError(ctx, error) : CONTINUE
      },
    }
  },
})
