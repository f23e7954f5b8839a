/**
 * @module What /admin/batches answers (src/http/admin/batches.ts), as zod schemas: the OpenAPI document and the
 * dashboard's parser (src/dashboard/views/batches-view.tsx) read the same ones.
 */
import { z } from 'zod'
import { batchObject } from './schemas.ts'

export const adminBatch = batchObject.extend({
  owner: z.string().describe('Principal id of the key (or master) that made the batch'),
  user_path: z.string(),
  labels: z.array(z.string()),
  cost_usd: z.number().describe('USD charged so far by the lines that ran (the gateway prices; a provider batch API at its batch price)'),
})
export const adminBatchList = z.object({ object: z.literal('list'), data: z.array(adminBatch), has_more: z.boolean() })
export const adminLine = z.object({
  index: z.number().int(),
  custom_id: z.string(),
  state: z.enum(['pending', 'claimed', 'submitted', 'succeeded', 'failed']),
  target: z.string().nullable().describe('The provider whose batch API ran it; null: the gateway ran it'),
  status_code: z.number().int().nullable(),
  error_code: z.string().nullable(),
  audit_id: z.string().nullable().describe("The line's audit entry (GET /admin/audit/detail?log_id=)"),
  cost_usd: z.number(),
})
export const adminBatchDetail = z.object({ batch: adminBatch, lines: z.array(adminLine), next_from: z.number().int().nullable() })

export type AdminBatch = z.infer<typeof adminBatch>
export type AdminBatchLine = z.infer<typeof adminLine>
