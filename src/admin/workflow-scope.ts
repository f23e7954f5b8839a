/**
 * @module Which workflows a scoped principal may read. A workflow matched by model or provider alone (or the
 * default) applies to every tenant, so every tenant may read it; one scoped to a user path is readable inside
 * that path's subtree and by the tenants below it (it applies to their requests too); one scoped to a key is
 * readable where that key lies. Another tenant's workflow (its key ids, paths and plugin settings such as a system
 * prompt) is never shown: it is as absent as an unknown id.
 */
import type { ApiKeyRecord } from '../stores/types.ts'
import type { WorkflowScope } from '../workflows/definition.ts'
import { inAdminScope } from './scope.ts'
import { isWithinUserPath } from '../keys/user-path.ts'

/** `keyById` reads the key snapshot; a key it does not know lies outside every scoped subtree. */
export function workflowVisible(adminScope: string | null, scope: WorkflowScope, keyById: (id: string) => ApiKeyRecord | undefined): boolean {
  if (adminScope === null) return true
  if (scope.key_id !== undefined && !inAdminScope(adminScope, keyById(scope.key_id)?.userPath)) return false
  if (scope.user_path !== undefined && !inAdminScope(adminScope, scope.user_path) && !isWithinUserPath(adminScope, scope.user_path)) return false
  return true
}
