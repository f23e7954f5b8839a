/**
 * @module What each /admin route needs, written out rather than read from the code: a route added later that the
 * table lacks fails test/e2e/admin-roles.test.ts, and a role that gets more (or less) than listed fails the
 * matrices there and in test/e2e/sso-dashboard.test.ts (the same routes for signed-in persons).
 */

export const ROLES = ['viewer', 'auditor', 'key_manager', 'admin'] as const
export type Role = (typeof ROLES)[number]

const EVERY = ROLES
export const ADMIN_ROUTE_ROLES: Record<string, { roles: readonly Role[]; unscopedOnly?: true }> = {
  'GET /admin/whoami': { roles: EVERY },
  'GET /admin/keys': { roles: EVERY },
  'GET /admin/keys/:id': { roles: EVERY },
  'POST /admin/keys': { roles: ['key_manager', 'admin'] },
  'PATCH /admin/keys/:id': { roles: ['key_manager', 'admin'] },
  'POST /admin/keys/:id/revoke': { roles: ['key_manager', 'admin'] },
  'GET /admin/workflows': { roles: EVERY },
  'GET /admin/workflows/:id': { roles: EVERY },
  'POST /admin/workflows': { roles: ['admin'], unscopedOnly: true },
  'POST /admin/workflows/:id/deactivate': { roles: ['admin'], unscopedOnly: true },
  'GET /admin/plugins': { roles: EVERY },
  'GET /admin/budgets': { roles: EVERY },
  'POST /admin/budgets': { roles: ['admin'] },
  'DELETE /admin/budgets/:id': { roles: ['admin'] },
  'GET /admin/rate-limits': { roles: EVERY },
  'POST /admin/rate-limits': { roles: ['admin'] },
  'DELETE /admin/rate-limits/:id': { roles: ['admin'] },
  'GET /admin/usage/summary': { roles: EVERY },
  'GET /admin/usage/breakdown': { roles: EVERY },
  'GET /admin/pricing': { roles: EVERY },
  'PUT /admin/pricing/*': { roles: ['admin'], unscopedOnly: true },
  'DELETE /admin/pricing/*': { roles: ['admin'], unscopedOnly: true },
  'GET /admin/audit/log': { roles: EVERY },
  'GET /admin/audit/detail': { roles: EVERY },
  'GET /admin/audit/conversation': { roles: EVERY },
  'GET /admin/audit/stats': { roles: EVERY },
  'GET /admin/audit/writer-stats': { roles: EVERY, unscopedOnly: true },
  'GET /metrics': { roles: EVERY, unscopedOnly: true },
  'GET /admin/mcp/servers': { roles: EVERY },
  'GET /admin/mcp/servers/:id': { roles: EVERY },
  'POST /admin/mcp/servers': { roles: ['admin'], unscopedOnly: true },
  'PUT /admin/mcp/servers/:id': { roles: ['admin'], unscopedOnly: true },
  'DELETE /admin/mcp/servers/:id': { roles: ['admin'], unscopedOnly: true },
  'GET /admin/mcp/visibility': { roles: EVERY },
  'POST /admin/mcp/visibility': { roles: ['admin'], unscopedOnly: true },
  'DELETE /admin/mcp/visibility/:id': { roles: ['admin'], unscopedOnly: true },
  'GET /admin/mcp/credentials': { roles: EVERY },
  'DELETE /admin/mcp/credentials/:id': { roles: ['key_manager', 'admin'] },
  'GET /admin/batches': { roles: EVERY },
  'GET /admin/batches/:id': { roles: EVERY },
  'GET /admin/files': { roles: EVERY },
}
/** A request to the route that changes nothing when allowed (unknown ids, invalid bodies). */
export function adminRouteProbe(name: string): { method: string; path: string; body?: unknown } {
  const [method, pattern] = name.split(' ') as [string, string]
  const path = pattern.replace(':id', 'no-such-id').replace('*', 'no-such-model')
  const query = path.startsWith('/admin/audit/detail') || path.startsWith('/admin/audit/conversation') ? '?log_id=no-such-entry' : ''
  return { method, path: `${path}${query}`, body: method === 'GET' || method === 'DELETE' ? undefined : {} }
}
