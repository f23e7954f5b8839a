/**
 * @module /admin/files: the Files API's records of the principal's subtree, newest first (name, purpose, size,
 * SHA-256, owner, user path, expiry), for the dashboard's Files page. Records only: a file's bytes are its owner's,
 * read through /v1/files; a file with no user path is outside every scoped subtree.
 */
import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Gateway } from '../../app.ts'
import { confinedPath } from '../../admin/scope.ts'
import { adminFileList } from '../../files/admin-views.ts'
import type { StoredFileInfo } from '../../files/file-access.ts'
import { gatewayErrors } from '../../errors/gateway-error.ts'
import { adminAnswer, adminDoc, adminResponses, jsonResponse, queryRecord } from './admin-http.ts'
import { adminPermission } from './permission.ts'

const listQuery = z.object({
  user_path: z.string().max(1000).optional(),
  owner: z.string().max(300).optional(),
  purpose: z.string().max(100).optional(),
  before: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
})

const adminFileView = (f: StoredFileInfo) => ({
  id: f.id,
  owner: f.owner,
  user_path: f.userPath || '/',
  filename: f.filename,
  purpose: f.purpose,
  bytes: f.bytes,
  sha256: f.sha256,
  created_at: f.createdAt,
  expires_at: f.expiresAt,
})

export function fileAdminRoutes(gateway: Gateway) {
  const store = gateway.stores.files
  return new Elysia({ name: 'gateway/admin/files' }).use(adminPermission).get(
    '/files',
    (context) =>
      adminAnswer(gateway, context, async (actor) => {
        const parsed = listQuery.safeParse(queryRecord(context.request))
        if (!parsed.success) throw gatewayErrors.fromZod(parsed.error, { subject: 'query' })
        const q = parsed.data
        const found = await store.adminList({ userPath: confinedPath(actor.admin.scope, q.user_path), owner: q.owner, purpose: q.purpose, before: q.before, limit: q.limit + 1 })
        return Response.json({ object: 'list', data: found.slice(0, q.limit).map(adminFileView), has_more: found.length > q.limit })
      }),
    {
      permission: 'files.read',
      detail: {
        ...adminDoc(
          'files',
          'Files of your subtree, newest first: name, purpose, size, SHA-256, owner, expiry (never the bytes)',
          undefined,
          adminResponses({ 200: jsonResponse(adminFileList, 'The files') }, [400]),
        ),
        parameters: [
          { name: 'user_path', in: 'query', schema: { type: 'string' as const } },
          { name: 'owner', in: 'query', description: 'A principal id.', schema: { type: 'string' as const } },
          { name: 'purpose', in: 'query', schema: { type: 'string' as const } },
          { name: 'before', in: 'query', description: 'A file id: the page starts after it (older files).', schema: { type: 'string' as const } },
          { name: 'limit', in: 'query', schema: { type: 'integer' as const, minimum: 1, maximum: 100, default: 25 } },
        ],
      },
    },
  )
}
