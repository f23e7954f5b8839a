/**
 * @module The roles a caller holds, for visibility rules that name a `role`: its admin role (src/admin/roles.ts:
 * the master key is `admin`, a managed key has the role it was given, none for a key without admin access). The
 * one place that reads roles off a Principal, so callers that bring roles from elsewhere (JWT claims, issue 31)
 * are added here.
 */
import type { Principal } from '../pipeline/context.ts'

const NONE: readonly string[] = Object.freeze([])
const cache = new Map<string, readonly string[]>()

export function principalRoles(principal: Principal): readonly string[] {
  const role = principal.admin?.role
  if (!role) return NONE
  let roles = cache.get(role)
  if (!roles) cache.set(role, (roles = Object.freeze([role])))
  return roles
}
