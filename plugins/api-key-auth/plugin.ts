/**
 * @module API key authentication for /v1 (core, always on). Accepts the master key or a managed key checked
 * against the in-memory snapshot; without a master key and without any managed key the gateway runs open, as
 * start-up warns. The precise failure reason goes to the audit entry (`ctx.authFailureReason`); the client gets
 * one generic 401. Then the request's user path: the key's bound path, narrowed by `X-Gateway-User-Path`.
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { KeyAuthenticator } from '../../src/keys/authenticator.ts'
import { requestUserPath, USER_PATH_HEADER } from '../../src/keys/user-path.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { apiKeyAuthManifest } from './manifest.ts'

export const apiKeyAuth = definePlugin({
  manifest: apiKeyAuthManifest,
  create({ config, keys, authFailures }) {
    const authenticator = new KeyAuthenticator(config.master_key, keys)
    return {
      before(ctx) {
        const result = ctx.authentication ?? authenticator.authenticate(ctx.headers)
        if (result.kind === 'rejected') {
          ctx.authFailureReason = result.reason
          ctx.auditSuppressed = !authFailures.shouldAudit(ctx.clientIp, result.failure)
          const retryAfter = authFailures.throttleFailure(ctx.clientIp)
          return respondWithError(ctx, retryAfter > 0 ? gatewayErrors.authThrottled(retryAfter) : gatewayErrors.unauthenticated())
        }
        if (result.kind === 'unavailable') {
          ctx.authFailureReason = result.reason
          return respondWithError(ctx, gatewayErrors.unavailable('API keys cannot be checked right now; try again shortly.', 'key_store_unavailable'))
        }
        ctx.principal = result.principal
        const keyId = result.principal.keyId
        // Revocation reaches every process through the key snapshot and its change feed: a stream of a key revoked
        // meanwhile ends at its next chunk.
        if (ctx.stream && keyId) ctx.streamStillAllowed = () => (keys.isRevoked(keyId) ? gatewayErrors.keyRevokedMidStream() : undefined)

        const userPath = requestUserPath(result.principal.userPath, ctx.headers.get(USER_PATH_HEADER))
        if (!userPath.ok) {
          return respondWithError(
            ctx,
            userPath.problem === 'invalid'
              ? gatewayErrors.invalidRequest(`X-Gateway-User-Path: ${userPath.reason}.`, USER_PATH_HEADER, 'invalid_user_path')
              : gatewayErrors.forbidden(`X-Gateway-User-Path: ${userPath.reason}; a key may only narrow its own path.`, 'user_path_not_allowed'),
          )
        }
        ctx.userPath = userPath.path
        return CONTINUE
      },
    }
  },
})
