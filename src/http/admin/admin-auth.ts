/**
 * @module Who may use /admin: the master key (compared in constant time) or a managed key with dashboard access.
 * Without a master key the admin API is closed.
 */
import { constantTimeEquals, presentedKey } from '../../../plugins/api-key-auth/credentials.ts'
import { GatewayError, gatewayErrors } from '../../errors/gateway-error.ts'
import type { Principal } from '../../pipeline/context.ts'

export type AdminAuthResult = { ok: true; principal: Principal } | { ok: false; error: GatewayError; reason: string }

export interface AdminAuthenticator {
  authenticate(headers: Headers): AdminAuthResult
}

export function masterKeyAdminAuthenticator(masterKey: string | undefined): AdminAuthenticator {
  return {
    authenticate(headers) {
      if (!masterKey) {
        return {
          ok: false,
          reason: 'admin API closed: no master key configured',
          error: new GatewayError({ status: 401, type: 'authentication_error', code: 'admin_disabled', message: 'The admin API is closed: set GATEWAY_MASTER_KEY to enable it.' }),
        }
      }
      const presented = presentedKey(headers)
      if (presented.kind !== 'key') return { ok: false, reason: presented.kind === 'missing' ? 'no key presented' : presented.reason, error: gatewayErrors.unauthenticated() }
      if (constantTimeEquals(presented.key, masterKey)) return { ok: true, principal: { method: 'master_key', id: 'master' } }
      return { ok: false, reason: 'unknown key', error: gatewayErrors.unauthenticated() }
    },
  }
}
