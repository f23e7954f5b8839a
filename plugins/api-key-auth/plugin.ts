/**
 * @module API key authentication for /v1 (core, always on). With GATEWAY_MASTER_KEY set, every request needs it;
 * without one the gateway runs open, as start-up warns. The precise failure reason goes to the audit entry; the
 * client gets one generic 401.
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import type { RequestContext } from '../../src/pipeline/context.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { constantTimeEquals, presentedKey } from './credentials.ts'
import { apiKeyAuthManifest } from './manifest.ts'

export const apiKeyAuth = definePlugin({
  manifest: apiKeyAuthManifest,
  create(_config, { config }) {
    const masterKey = config.master_key
    const reject = (ctx: RequestContext, reason: string) => {
      ctx.authFailureReason = reason
      return respondWithError(ctx, gatewayErrors.unauthenticated())
    }
    return {
      before(ctx) {
        if (!masterKey) {
          ctx.principal = { method: 'none', id: 'anonymous' }
          return CONTINUE
        }
        const presented = presentedKey(ctx.headers)
        if (presented.kind === 'missing') return reject(ctx, 'no API key presented')
        if (presented.kind === 'malformed') return reject(ctx, presented.reason)
        if (!constantTimeEquals(presented.key, masterKey)) return reject(ctx, 'unknown API key')
        ctx.principal = { method: 'master_key', id: 'master' }
        return CONTINUE
      },
    }
  },
})
