/**
 * @module ID-token claims to an admin grant by the configured rules, first match wins. No match, no grant: the
 * person cannot sign in (or, at the next refresh, loses the session).
 */
import type { AdminGrant } from '../admin/roles.ts'
import { normalizeUserPath } from '../keys/user-path.ts'
import type { RoleRule } from './config.ts'

export function grantFromClaims(rules: readonly RoleRule[], claims: Record<string, unknown>, expiresAt: string): AdminGrant | undefined {
  for (const rule of rules) {
    if (!matches(rule, claims)) continue
    const scope = rule.scope ? normalizeUserPath(rule.scope) : undefined
    if (scope && !scope.ok) continue
    return { role: rule.role, scope: scope && scope.path !== '/' ? scope.path : null, expiresAt }
  }
  return undefined
}

function matches(rule: RoleRule, claims: Record<string, unknown>): boolean {
  if (rule.email_domain !== undefined) {
    const email = claims.email
    // A provider that says the address is unverified is not trusted with a domain.
    if (typeof email !== 'string' || claims.email_verified === false) return false
    return email.toLowerCase().endsWith(`@${rule.email_domain.toLowerCase()}`)
  }
  const value = claims[rule.claim!]
  if (rule.includes !== undefined) return Array.isArray(value) ? value.includes(rule.includes) : value === rule.includes
  return value === rule.equals
}
