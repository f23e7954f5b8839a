/**
 * @module Who may do what on /admin: the four roles, the one table of permissions each holds, and which roles a
 * principal may hand out. Every /admin route names the permission it needs beside itself
 * (src/http/admin/permission.ts); what lies inside a principal's user-path subtree is ./scope.ts; what a
 * principal may give a key is ./key-grants.ts. A principal is anything with an `AdminGrant` (a managed key with
 * a role, the master key, later a signed-in person), never assumed to be a key.
 */
import { GatewayError } from '../errors/gateway-error.ts'

/** Lowest to highest. */
export const ADMIN_ROLES = ['viewer', 'auditor', 'key_manager', 'admin'] as const
export type AdminRole = (typeof ADMIN_ROLES)[number]

/** What a principal may do on /admin, and where. */
export interface AdminGrant {
  role: AdminRole
  /** The user-path subtree it administers (normalised, never `/`); null: the whole tree, an unscoped principal. */
  scope: string | null
  /** The credential's own expiry (RFC 3339): keys it creates or changes may not outlive it. Null: none. */
  expiresAt: string | null
}

interface PermissionRule {
  roles: readonly AdminRole[]
  /** Only an unscoped principal holds it: it reads or changes what every tenant shares. */
  global?: true
  /** Completes "may not …" in a refusal. */
  action: string
}

const EVERY_ROLE = ADMIN_ROLES

/**
 * The table. Reading keys, usage, limits and audit entries is confined to the principal's subtree by the routes
 * (./scope.ts); a `global` permission needs an unscoped principal.
 */
export const PERMISSIONS = {
  'session.read': { roles: EVERY_ROLE, action: 'read its own session' },
  'keys.read': { roles: EVERY_ROLE, action: 'read API keys' },
  'keys.write': { roles: ['key_manager', 'admin'], action: 'create, change or revoke API keys' },
  'usage.read': { roles: EVERY_ROLE, action: 'read usage' },
  'limits.read': { roles: EVERY_ROLE, action: 'read budgets and rate limits' },
  'limits.write': { roles: ['admin'], action: 'create or delete budgets and rate limits' },
  'audit.read': { roles: EVERY_ROLE, action: 'read the audit log' },
  'audit.content': { roles: ['auditor', 'admin'], action: 'read request and response bodies and headers' },
  'audit.security_events': { roles: ['auditor', 'admin'], action: 'read security events' },
  'operations.read': { roles: EVERY_ROLE, global: true, action: "read the gateway's own counters (audit writer, metrics)" },
  'workflows.read': { roles: EVERY_ROLE, action: 'read workflows' },
  'workflows.write': { roles: ['admin'], global: true, action: 'create, change or deactivate workflows' },
  'plugins.read': { roles: EVERY_ROLE, action: 'read the plugin list' },
  'prices.read': { roles: EVERY_ROLE, action: 'read prices' },
  'prices.write': { roles: ['admin'], global: true, action: 'change prices' },
  'mcp.read': { roles: EVERY_ROLE, action: 'read MCP servers, their tools and the visibility rules' },
  'mcp.write': { roles: ['admin'], global: true, action: 'add, change or remove MCP servers and visibility rules' },
  'mcp.credentials.read': { roles: EVERY_ROLE, action: "read callers' upstream MCP credentials (never their secrets)" },
  'mcp.credentials.revoke': { roles: ['key_manager', 'admin'], action: "revoke callers' upstream MCP credentials" },
  'batches.read': { roles: EVERY_ROLE, action: "read batches and their lines' progress" },
  'files.read': { roles: EVERY_ROLE, action: "read the Files API's records (names, sizes, owners; never the bytes)" },
} as const satisfies Record<string, PermissionRule>

export type AdminPermission = keyof typeof PERMISSIONS
export const ADMIN_PERMISSIONS = Object.keys(PERMISSIONS) as AdminPermission[]

/** Roles each role may give a key (and so change or revoke keys holding them). A key without a role needs only `keys.write`. */
const GRANTABLE: Record<AdminRole, readonly AdminRole[]> = {
  viewer: [],
  auditor: [],
  key_manager: [],
  admin: ADMIN_ROLES,
}

export function grantableRoles(role: AdminRole | null): readonly AdminRole[] {
  return role ? GRANTABLE[role] : []
}

export function isAdminRole(value: unknown): value is AdminRole {
  return typeof value === 'string' && (ADMIN_ROLES as readonly string[]).includes(value)
}

export function hasPermission(grant: AdminGrant | undefined, permission: AdminPermission): boolean {
  if (!grant) return false
  const rule: PermissionRule = PERMISSIONS[permission]
  return rule.roles.includes(grant.role) && (!rule.global || grant.scope === null)
}

/** Every permission the grant holds (what the dashboard offers). */
export function permissionsOf(grant: AdminGrant): AdminPermission[] {
  return ADMIN_PERMISSIONS.filter((p) => hasPermission(grant, p))
}

/** Undefined when allowed; else the 403 that says which permission the role or the scope lacks. */
export function refusal(grant: AdminGrant | undefined, permission: AdminPermission): GatewayError | undefined {
  if (hasPermission(grant, permission)) return undefined
  const rule: PermissionRule = PERMISSIONS[permission]
  if (!grant) return adminAccessDenied()
  const why = rule.roles.includes(grant.role)
    ? `only an unscoped principal may ${rule.action}; this one is confined to ${grant.scope}`
    : `the role ${grant.role} may not ${rule.action}`
  return new GatewayError({ status: 403, type: 'authentication_error', code: 'admin_permission_denied', message: `Not allowed: ${why} (${permission}).` })
}

export const adminAccessDenied = () =>
  new GatewayError({ status: 403, type: 'authentication_error', code: 'admin_access_denied', message: 'This credential has no admin or dashboard access.' })
