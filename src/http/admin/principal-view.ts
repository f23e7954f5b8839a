/**
 * @module The signed-in principal as GET /admin/whoami and POST /admin/session answer it: who, its role, the
 * user-path subtree it administers, what it may do (the dashboard offers only that; the routes enforce it) and
 * which roles it may give a key.
 */
import { z } from 'zod'
import { ADMIN_PERMISSIONS, ADMIN_ROLES, grantableRoles, permissionsOf } from '../../admin/roles.ts'
import type { Principal } from '../../pipeline/context.ts'

export const adminPrincipalView = z.object({
  principal_id: z.string(),
  auth_method: z.enum(['master_key', 'managed_key', 'jwt', 'oidc_session', 'none']),
  key_id: z.string().nullable(),
  user_path: z.string().nullable(),
  role: z.enum(ADMIN_ROLES),
  scope: z.string().nullable().describe('The user-path subtree it administers; null: the whole tree.'),
  permissions: z.array(z.enum(ADMIN_PERMISSIONS as [string, ...string[]])),
  grantable_roles: z.array(z.enum(ADMIN_ROLES)),
})
export type AdminPrincipalView = z.infer<typeof adminPrincipalView>

/** Only for a principal the admin guard let in (it has a grant). */
export function describeAdminPrincipal(principal: Principal): AdminPrincipalView {
  const grant = principal.admin!
  return {
    principal_id: principal.id,
    auth_method: principal.method,
    key_id: principal.keyId ?? null,
    user_path: principal.userPath ?? null,
    role: grant.role,
    scope: grant.scope,
    permissions: permissionsOf(grant),
    grantable_roles: [...grantableRoles(grant.role)],
  }
}
