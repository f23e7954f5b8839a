/**
 * @module The roles a caller holds, for visibility rules that name a `role`. The one place that reads roles off a
 * Principal: the master key holds `admin`; a managed key with dashboard access holds `admin` too until keys carry
 * their own role (issue 26's admin roles), and JWT callers (issue 31) will bring theirs from their claims.
 */
import type { Principal } from '../pipeline/context.ts'

const ADMIN: readonly string[] = Object.freeze(['admin'])
const NONE: readonly string[] = Object.freeze([])

export function principalRoles(principal: Principal): readonly string[] {
  if (principal.method === 'master_key') return ADMIN
  return principal.dashboardEnabled ? ADMIN : NONE
}
