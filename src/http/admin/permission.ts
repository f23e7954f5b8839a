/**
 * @module The `permission` every /admin route declares beside itself: `{ permission: 'keys.read' }` in the route's
 * options refuses (403) a principal whose role or scope lacks it (src/admin/roles.ts) before the handler runs,
 * and names it in the route's OpenAPI entry (`x-admin-permission`), where test/e2e/admin-roles.test.ts finds it
 * for every registered route. What lies inside the principal's subtree the handler decides (src/admin/scope.ts).
 */
import { Elysia } from 'elysia'
import type { AdminPermission } from '../../admin/roles.ts'
import { refusal } from '../../admin/roles.ts'
import { errorResponse } from '../../errors/gateway-error.ts'
import type { Principal } from '../../pipeline/context.ts'

const PERMISSION_EXTENSION = 'x-admin-permission'

export const adminPermission = new Elysia({ name: 'gateway/admin/permission' }).macro({
  permission: (permission: AdminPermission) => ({
    detail: { [PERMISSION_EXTENSION]: permission } as Record<string, string>,
    beforeHandle(context: unknown) {
      const refused = refusal((context as { adminPrincipal?: Principal }).adminPrincipal?.admin, permission)
      if (refused) return errorResponse(refused)
    },
  }),
})
