/**
 * @module Who may use /admin: the master key (compared in constant time) or a managed key with an admin role.
 * Any other valid managed key gets 403; an invalid one 401. Without a master key the admin API is closed.
 * Every check goes through the credential throttle: an address that keeps guessing gets 401 `auth_throttled`
 * before its credential is looked at (the admin guard, /admin/session, /metrics and /ready all come here).
 */
import { adminAccessDenied } from '../../admin/roles.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { KeyAuthenticator } from '../../keys/authenticator.ts'
import type { CredentialThrottle } from '../../keys/credential-throttle.ts'
import type { KeyDirectory } from '../../keys/key-directory.ts'
import type { Principal } from '../../pipeline/context.ts'

export type AdminAuthResult = { ok: true; principal: Principal } | { ok: false; error: GatewayError; reason: string }

export interface AdminAuthenticator {
  /** `clientAddress` is read only when the throttle needs it. */
  authenticate(headers: Headers, clientAddress: () => string): AdminAuthResult
}

const adminClosed = (): AdminAuthResult => ({
  ok: false,
  reason: 'admin API closed: no master key configured',
  error: new GatewayError({ status: 401, type: 'authentication_error', code: 'admin_disabled', message: 'The admin API is closed: set GATEWAY_MASTER_KEY to enable it.' }),
})

/** The master key, or a managed key from the snapshot that has an admin role. */
export function keyAdminAuthenticator(masterKey: string | undefined, keys: KeyDirectory, throttle?: CredentialThrottle): AdminAuthenticator {
  const authenticator = new KeyAuthenticator(masterKey, keys, { throttle })
  return {
    authenticate(headers, clientAddress) {
      if (!masterKey) return adminClosed()
      const result = authenticator.authenticate(headers, clientAddress)
      switch (result.kind) {
        case 'rejected':
          return { ok: false, reason: result.reason, error: gatewayErrors.unauthenticated() }
        case 'throttled':
          return { ok: false, reason: result.reason, error: gatewayErrors.authThrottled(result.retryAfterSeconds) }
        case 'unavailable':
          return { ok: false, reason: result.reason, error: gatewayErrors.unavailable('API keys cannot be checked right now; try again shortly.', 'key_store_unavailable') }
        case 'authenticated':
          // Which admin routes, and where, is the route's permission (src/admin/roles.ts); here only "any at all".
          if (result.principal.admin) return { ok: true, principal: result.principal }
          return { ok: false, reason: `API key ${result.principal.id} has no admin role`, error: adminAccessDenied() }
      }
    },
  }
}
