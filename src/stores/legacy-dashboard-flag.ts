/**
 * @module The `dashboard_enabled` column as releases before admin roles read it ("may use /admin"): every store
 * writes it from the key's role and user path, true only for an unscoped admin, so a replica of the previous
 * release during a rolling upgrade never grants more than the key has. Nothing in this release reads it.
 */
import { scopeOfUserPath } from '../admin/scope.ts'
import type { ApiKeyRecord } from './types.ts'

export function legacyDashboardFlag(key: Pick<ApiKeyRecord, 'role' | 'userPath'>): boolean {
  return key.role === 'admin' && scopeOfUserPath(key.userPath) === null
}
