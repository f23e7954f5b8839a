import { expect, test } from 'bun:test'
import { ADMIN_PERMISSIONS, ADMIN_ROLES, type AdminGrant, type AdminRole, grantableRoles, hasPermission, permissionsOf, refusal } from './roles.ts'

const grant = (role: AdminRole, scope: string | null = null): AdminGrant => ({ role, scope, expiresAt: null })

test('the table, role by role (unscoped)', () => {
  const reads: string[] = [
    'session.read',
    'keys.read',
    'usage.read',
    'limits.read',
    'audit.read',
    'operations.read',
    'workflows.read',
    'plugins.read',
    'prices.read',
    'mcp.read',
    'mcp.credentials.read',
    'batches.read',
    'files.read',
  ]
  expect([...permissionsOf(grant('viewer'))].sort() as string[]).toEqual([...reads].sort())
  expect([...permissionsOf(grant('auditor'))].sort() as string[]).toEqual([...reads, 'audit.content', 'audit.security_events'].sort())
  expect([...permissionsOf(grant('key_manager'))].sort() as string[]).toEqual([...reads, 'keys.write', 'mcp.credentials.revoke'].sort())
  expect([...permissionsOf(grant('admin'))].sort() as string[]).toEqual([...ADMIN_PERMISSIONS].sort())
})

test('a scoped principal lacks the global permissions, whatever its role', () => {
  expect(permissionsOf(grant('admin', '/acme'))).not.toContain('workflows.write')
  expect(permissionsOf(grant('admin', '/acme'))).not.toContain('prices.write')
  expect(permissionsOf(grant('admin', '/acme'))).not.toContain('mcp.write')
  expect(permissionsOf(grant('key_manager', '/acme'))).toContain('mcp.credentials.revoke')
  expect(permissionsOf(grant('viewer', '/acme'))).not.toContain('operations.read')
  expect(permissionsOf(grant('admin', '/acme'))).toContain('limits.write')
  expect(permissionsOf(grant('admin', '/acme'))).toContain('keys.write')
})

test('only an admin grants roles, and any of them', () => {
  expect(grantableRoles('admin')).toEqual(ADMIN_ROLES)
  for (const role of ['viewer', 'auditor', 'key_manager'] as const) expect(grantableRoles(role)).toEqual([])
  expect(grantableRoles(null)).toEqual([])
})

test('a refusal says why: the role, or the scope; no grant at all is admin_access_denied', () => {
  expect(refusal(grant('viewer'), 'keys.write')).toMatchObject({ status: 403, code: 'admin_permission_denied', message: expect.stringContaining('the role viewer may not') })
  expect(refusal(grant('admin', '/acme'), 'prices.write')).toMatchObject({ status: 403, message: expect.stringContaining('confined to /acme') })
  expect(refusal(undefined, 'session.read')).toMatchObject({ status: 403, code: 'admin_access_denied' })
  expect(refusal(grant('admin'), 'prices.write')).toBeUndefined()
  expect(hasPermission(undefined, 'keys.read')).toBe(false)
})
