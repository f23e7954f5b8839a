/**
 * @module What /admin/files answers (src/http/admin/files.ts), as zod schemas: the OpenAPI document and the
 * dashboard's parser (src/dashboard/views/files-view.tsx) read the same ones. Records only: never a file's bytes.
 */
import { z } from 'zod'

export const adminFile = z.object({
  id: z.string(),
  owner: z.string().describe('Principal id of the key (or master) that uploaded or made the file'),
  user_path: z.string(),
  filename: z.string(),
  purpose: z.string(),
  bytes: z.number().int(),
  sha256: z.string(),
  created_at: z.number().int().describe('Epoch seconds'),
  expires_at: z.number().int().nullable().describe('Epoch seconds; null: kept until deleted'),
})
export const adminFileList = z.object({ object: z.literal('list'), data: z.array(adminFile), has_more: z.boolean() })

export type AdminFile = z.infer<typeof adminFile>
