/**
 * @module Who may use /admin: the master key (compared in constant time) or a managed key with an admin role.
 * Any other valid managed key gets 403; an invalid one 401. Without a master key the admin API is closed.
 */
import { adminAccessDenied } from '../../admin/roles.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import { KeyAuthenticator } from '../../keys/authenticator.ts'
import type { KeyDirectory } from '../../keys/key-directory.ts'
import type { Principal } from '../../pipeline/context.ts'

export type AdminAuthResult = { ok: true; principal: Principal } | { ok: false; error: GatewayError; reason: string }

export interface AdminAuthenticator {
  authenticate(headers: Headers): AdminAuthResult
}

const adminClosed = (): AdminAuthResult => ({
  ok: false,
  reason: 'admin API closed: no master key configured',
  error: new GatewayError({ status: 401, type: 'authentication_error', code: 'admin_disabled', message: 'The admin API is closed: set GATEWAY_MASTER_KEY to enable it.' }),
})

/** The master key, or a managed key from the snapshot that has an admin role. */
export function keyAdminAuthenticator(masterKey: string | undefined, keys: KeyDirectory): AdminAuthenticator {
  const authenticator = new KeyAuthenticator(masterKey, keys)
  return {
    authenticate(headers) {
      if (!masterKey) return adminClosed()
      const result = authenticator.authenticate(headers)
      switch (result.kind) {
        case 'rejected':
          return { ok: false, reason: result.reason, error: gatewayErrors.unauthenticated() }
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
