/**
 * @module The admin grant a credential carries into its Principal: the master key is an unscoped admin; a managed
 * key has its role, confined to its own user path (unbound or `/`: the whole tree), and its own expiry. A person
 * signed in through an identity provider will get one from their claims the same way.
 */
import type { ApiKeyRecord } from '../stores/types.ts'
import type { AdminGrant } from './roles.ts'
import { scopeOfUserPath } from './scope.ts'

export const MASTER_GRANT: AdminGrant = Object.freeze({ role: 'admin', scope: null, expiresAt: null })

export function adminGrantOf(key: Pick<ApiKeyRecord, 'role' | 'userPath' | 'expiresAt'>): AdminGrant | undefined {
  return key.role ? { role: key.role, scope: scopeOfUserPath(key.userPath), expiresAt: key.expiresAt } : undefined
}
