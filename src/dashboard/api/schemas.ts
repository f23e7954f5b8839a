/**
 * @module What the admin API answers, as zod schemas: every answer is parsed before a view sees it. The audit
 * shapes are the server's own (src/audit/schemas.ts); the rest mirror the route files in src/http/admin.
 */
import { z } from 'zod'
import { auditConversationSchema, auditLogEntrySchema, auditLogPageSchema, gatewayErrorSchema } from '../../audit/schemas.ts'
import { ADMIN_ROLES, type AdminPermission, type AdminRole } from '../../admin/roles.ts'
import { FEATURE_IDS } from '../../pipeline/snapshots.ts'
import { unitSums } from '../../usage/units.ts'

export { auditConversationSchema, auditLogEntrySchema, auditLogPageSchema, gatewayErrorSchema, FEATURE_IDS }
export type AuditLogEntry = z.infer<typeof auditLogEntrySchema>
export type FeatureId = (typeof FEATURE_IDS)[number]

/** GET /admin/whoami and POST /admin/session (src/http/admin/principal-view.ts): who, and what the dashboard may offer. */
export const principalSchema = z.object({
  principal_id: z.string(),
  auth_method: z.string(),
  key_id: z.string().nullable(),
  role: z.enum(ADMIN_ROLES),
  scope: z.string().nullable(),
  permissions: z.array(z.string()),
  grantable_roles: z.array(z.enum(ADMIN_ROLES)),
})
export type Principal = z.infer<typeof principalSchema>
export { ADMIN_ROLES, type AdminPermission, type AdminRole }

export { apiKeyView as apiKeySchema, createdKeyView as createdApiKeySchema, keyPageView as apiKeyPageSchema } from '../../keys/api-key-views.ts'
export type { ApiKeyView as ApiKey } from '../../keys/api-key-views.ts'

const usageSums = {
  requests: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  cached_input_tokens: z.number(),
  cost_usd: z.number(),
  saved_usd: z.number(),
  cache_hits: z.number(),
  // Work priced per unit (src/usage/units.ts); 0 when none.
  ...unitSums(() => z.number().default(0)),
}
export const usageSummarySchema = z.object({ start: z.string(), end: z.string(), ...usageSums })

export const USAGE_GROUPS = ['model', 'provider', 'key', 'user_path', 'label'] as const
export type UsageGroup = (typeof USAGE_GROUPS)[number]
const usageRowSchema = z.object({
  ...usageSums,
  model: z.string().optional(),
  provider: z.string().optional(),
  key_id: z.string().optional(),
  user_path: z.string().optional(),
  label: z.string().optional(),
  day: z.string().optional(),
})
export type UsageRow = z.infer<typeof usageRowSchema>
export const usageBreakdownSchema = z.object({ start: z.string(), end: z.string(), data: z.array(usageRowSchema) })

const featureFlagsSchema = z.object(Object.fromEntries(FEATURE_IDS.map((f) => [f, z.boolean()])) as Record<FeatureId, z.ZodBoolean>)
export type FeatureFlags = z.infer<typeof featureFlagsSchema>

export const workflowScopeSchema = z.object({
  key_id: z.string().optional(),
  user_path: z.string().optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
})
export type WorkflowScope = z.infer<typeof workflowScopeSchema>

export const workflowSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.number(),
  active: z.boolean(),
  scope: workflowScopeSchema,
  features: featureFlagsSchema,
  plugins: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  created_by: z.string(),
})
export type Workflow = z.infer<typeof workflowSchema>
export const workflowListSchema = z.object({ data: z.array(workflowSchema) })
export const workflowHistorySchema = workflowSchema.extend({ versions: z.array(workflowSchema) })

/** The part of JSON Schema the settings form understands; anything else is edited as JSON. */
export interface SettingSchema {
  type?: string | string[]
  enum?: unknown[]
  default?: unknown
  description?: string
  minimum?: number
  maximum?: number
  maxLength?: number
}
const settingSchema: z.ZodType<SettingSchema> = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  enum: z.array(z.unknown()).optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  maxLength: z.number().optional(),
})
export const pluginListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      stage: z.string(),
      summary: z.string(),
      features: z.array(z.string()),
      config_schema: z.object({ properties: z.record(z.string(), settingSchema).default({}) }),
    }),
  ),
})
export type PluginInfo = z.infer<typeof pluginListSchema>['data'][number]

/** /admin/mcp (src/http/admin/mcp.ts): the server's own view schemas. */
export { mcpCredentialView as mcpCredentialSchema, mcpServerView as mcpServerSchema } from '../../mcp/admin-views.ts'
export type { McpServerView as McpServer } from '../../mcp/admin-views.ts'
