/**
 * @module API key authentication for /v1 (core, always on). Accepts the master key or a managed key checked
 * against the in-memory snapshot; without a master key and without any managed key the gateway runs open only
 * when the operator allowed it (GATEWAY_ALLOW_OPEN). The precise failure reason goes to the audit entry
 * (`ctx.authFailureReason`); the client gets one generic 401, or 401 `auth_throttled` while its address is
 * throttled (the key was then not checked). Then the request's user path: the key's bound path, narrowed by
 * `X-Gateway-User-Path`; with GATEWAY_REQUIRE_KEY_USER_PATH a managed key without a bound path is refused.
 */
import { gatewayErrors } from '../../src/errors/gateway-error.ts'
import { KeyAuthenticator } from '../../src/keys/authenticator.ts'
import { requestUserPath, USER_PATH_HEADER } from '../../src/keys/user-path.ts'
import { CONTINUE, definePlugin, respondWithError } from '../../src/pipeline/types.ts'
import { apiKeyAuthManifest } from './manifest.ts'

export const apiKeyAuth = definePlugin({
  manifest: apiKeyAuthManifest,
  create({ config, keys, authFailures }) {
    const authenticator = new KeyAuthenticator(config.master_key, keys, { throttle: authFailures.throttle, allowOpen: config.auth.allow_open })
    const requireBoundPath = config.auth.require_key_user_path
    return {
      before(ctx) {
        const result = ctx.authentication ?? authenticator.authenticate(ctx.headers, () => ctx.clientIp)
        if (result.kind === 'rejected' || result.kind === 'throttled') {
          ctx.authFailureReason = result.reason
          ctx.auditSuppressed = !authFailures.shouldAudit(ctx.clientIp, result.kind === 'throttled' ? 'throttled' : result.failure)
          return respondWithError(ctx, result.kind === 'throttled' ? gatewayErrors.authThrottled(result.retryAfterSeconds) : gatewayErrors.unauthenticated())
        }
        if (result.kind === 'unavailable') {
          ctx.authFailureReason = result.reason
          return respondWithError(
            ctx,
            gatewayErrors.unavailable(
              'The credential cannot be checked right now (the key store or the token issuer cannot be reached); try again shortly.',
              'key_store_unavailable',
            ),
          )
        }
        ctx.principal = result.principal
        const keyId = result.principal.keyId
        if (requireBoundPath && (result.principal.method === 'managed_key' || result.principal.method === 'jwt') && result.principal.userPath === undefined) {
          return respondWithError(ctx, gatewayErrors.keyUserPathRequired())
        }
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
