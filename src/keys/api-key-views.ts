/**
 * @module What the key admin API answers, as zod schemas: the routes document and shape their answers with them,
 * and the dashboard parses the answers with the same ones.
 */
import { z } from 'zod'
import { exceedingFields, holderOfKey, POWER_FIELDS } from '../admin/key-grants.ts'
import { ADMIN_ROLES } from '../admin/roles.ts'
import type { ApiKeyRecord } from '../stores/types.ts'
import { keyStatus } from './key-status.ts'

export const apiKeyView = z.object({
  id: z.string(),
  object: z.literal('api_key'),
  name: z.string(),
  description: z.string(),
  redacted_key: z.string(),
  user_path: z.string().nullable(),
  allowed_models: z.array(z.string()).nullable(),
  role: z.enum(ADMIN_ROLES).nullable().describe('Admin role, confined to user_path (unbound: the whole tree); null: /v1 only.'),
  dashboard_enabled: z.boolean().describe('Kept for compatibility: true when the key has a role.'),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  revoked_at: z.string().nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
  created_by: z.string(),
  exceeds_creator: z.array(z.enum(POWER_FIELDS)).describe('Fields in which the key has more than the key that created it has now (after that one was lowered); empty when none.'),
})
export const createdKeyView = apiKeyView.extend({ key: z.string().describe('The secret. Shown only in this response.') })
export const keyPageView = z.object({ keys: z.array(apiKeyView), limit: z.number(), offset: z.number(), total: z.number() })

export type ApiKeyView = z.infer<typeof apiKeyView>

/** The key as the admin API shows it; `creator` is the key that created it, when a key did. */
export function toKeyView(r: ApiKeyRecord, now: number, creator: ApiKeyRecord | undefined): ApiKeyView {
  return {
    id: r.id,
    object: 'api_key',
    name: r.name,
    description: r.description,
    redacted_key: r.redactedKey,
    user_path: r.userPath,
    allowed_models: r.allowedModels === null ? null : [...r.allowedModels],
    role: r.role,
    dashboard_enabled: r.role !== null,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    revoked_at: r.revokedAt,
    status: keyStatus(r, now),
    created_by: r.createdBy,
    exceeds_creator: creator && r.revokedAt === null ? exceedingFields(r, holderOfKey(creator)) : [],
  }
}
