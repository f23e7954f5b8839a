/**
 * @module No self-widening, by construction: what a principal gives a key (its own or another) never exceeds what
 * the principal has. The same comparison flags keys that exceed their creator after the creator was lowered.
 *
 * A holder's power over a key's fields: the roles it may grant, its subtree, its models and its expiry. A key
 * exceeds it in a field when
 * - `role`: the key holds a role the holder may not grant;
 * - `user_path`: the holder is scoped and the key is unbound or bound outside the subtree;
 * - `allowed_models`: the holder is restricted and some entry of the key is not covered by one of its entries
 *   (compared as written: `openai/*` covers `openai/gpt-4o` and `openai/gpt-4o*`; a virtual model only itself);
 * - `expires_at`: the holder expires and the key does not, or later.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import { matchesAllowedModel } from '../keys/model-access.ts'
import type { Principal } from '../pipeline/context.ts'
import { type AdminGrant, type AdminRole, grantableRoles } from './roles.ts'
import { inAdminScope, scopeOfUserPath } from './scope.ts'

/** The fields of a key that carry power. */
export interface KeyPower {
  role: AdminRole | null
  userPath: string | null
  allowedModels: readonly string[] | null
  expiresAt: string | null
}

export const POWER_FIELDS = ['role', 'user_path', 'allowed_models', 'expires_at'] as const
export type PowerField = (typeof POWER_FIELDS)[number]

/** What a holder may give: the roles, the subtree (null: all), the models (null: all), the latest expiry (null: none). */
export interface Holder {
  roles: readonly AdminRole[]
  scope: string | null
  allowedModels: readonly string[] | null
  expiresAt: string | null
}

/** What a principal acting on /admin may give. */
export function holderOf(principal: Principal, grant: AdminGrant): Holder {
  return { roles: grantableRoles(grant.role), scope: grant.scope, allowedModels: principal.allowedModels ?? null, expiresAt: grant.expiresAt }
}

/** What a key could give the keys it created, as it is now. */
export function holderOfKey(creator: KeyPower): Holder {
  return { roles: grantableRoles(creator.role), scope: scopeOfUserPath(creator.userPath), allowedModels: creator.allowedModels, expiresAt: creator.expiresAt }
}

/** The fields (of those given) in which `key` exceeds what `holder` may give; empty when it does not. */
export function exceedingFields(key: KeyPower, holder: Holder, fields: readonly PowerField[] = POWER_FIELDS): PowerField[] {
  return fields.filter((field) => {
    switch (field) {
      case 'role':
        return key.role !== null && !holder.roles.includes(key.role)
      case 'user_path':
        return !inAdminScope(holder.scope, key.userPath)
      case 'allowed_models':
        return holder.allowedModels !== null && (key.allowedModels === null || !key.allowedModels.every((entry) => coveredBy(holder.allowedModels!, entry)))
      case 'expires_at':
        return holder.expiresAt !== null && (key.expiresAt === null || Date.parse(key.expiresAt) > Date.parse(holder.expiresAt))
    }
  })
}

/** An entry is covered when one of the holder's entries matches every name the entry can match. */
function coveredBy(entries: readonly string[], entry: string): boolean {
  return entries.some((own) => (entry.endsWith('*') ? own.endsWith('*') && entry.slice(0, -1).startsWith(own.slice(0, -1)) : matchesAllowedModel(own, entry)))
}

const REASONS: Record<PowerField, (holder: Holder) => string> = {
  role: (h) => (h.roles.length ? `you may grant only the roles ${h.roles.join(', ')}` : 'you may not grant admin roles'),
  user_path: (h) => `the key must be bound to a user path inside your admin scope ${h.scope}`,
  allowed_models: (h) => `the key's models must be covered by your own (${h.allowedModels?.join(', ')})`,
  expires_at: (h) => `the key must expire no later than your own credential (${h.expiresAt})`,
}

/** The 403 for the first exceeding field, naming it in `param`. */
export function widening(field: PowerField, holder: Holder): GatewayError {
  return new GatewayError({
    status: 403,
    type: 'authentication_error',
    code: 'exceeds_own_access',
    param: field,
    message: `${field}: a key cannot get more than you have: ${REASONS[field](holder)}.`,
  })
}
