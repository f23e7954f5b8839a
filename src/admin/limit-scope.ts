/**
 * @module Whether a budget or rate limit lies inside an admin scope: one bound to a user path when that path does,
 * one bound to a key when the key is bound inside it. The path a limit is filed under (its security events) too.
 */
import { gatewayErrors } from '../errors/gateway-error.ts'
import type { LimitScope } from '../limits/definitions.ts'
import { normalizeUserPath } from '../keys/user-path.ts'
import type { ApiKeyRecord } from '../stores/types.ts'
import { inAdminScope } from './scope.ts'

export type KeyLookup = (id: string) => Pick<ApiKeyRecord, 'userPath'> | undefined

/** The user path a limit applies to: its own, or its key's (null for an unknown or unbound key). */
export function limitUserPath(scope: LimitScope, keys: KeyLookup): string | null {
  if (scope.key_id !== undefined) return keys(scope.key_id)?.userPath ?? null
  const normalized = normalizeUserPath(scope.user_path ?? '')
  if (!normalized.ok) throw gatewayErrors.invalidRequest(`scope.user_path: ${normalized.reason}.`, 'scope.user_path', 'invalid_limit')
  return normalized.path
}

export function limitInAdminScope(adminScope: string | null, scope: LimitScope, keys: KeyLookup): boolean {
  if (adminScope === null) return true
  try {
    return inAdminScope(adminScope, limitUserPath(scope, keys))
  } catch {
    return false
  }
}
