/**
 * @module What the key admin API answers, as zod schemas: the routes document and shape their answers with them,
 * and the dashboard parses the answers with the same ones.
 */
import { z } from 'zod'

export const apiKeyView = z.object({
  id: z.string(),
  object: z.literal('api_key'),
  name: z.string(),
  description: z.string(),
  redacted_key: z.string(),
  user_path: z.string().nullable(),
  allowed_models: z.array(z.string()).nullable(),
  dashboard_enabled: z.boolean(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  revoked_at: z.string().nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
  created_by: z.string(),
})
export const createdKeyView = apiKeyView.extend({ key: z.string().describe('The secret. Shown only in this response.') })
export const keyPageView = z.object({ keys: z.array(apiKeyView), limit: z.number(), offset: z.number(), total: z.number() })

export type ApiKeyView = z.infer<typeof apiKeyView>
