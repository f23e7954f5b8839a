/**
 * @module The Files API's shapes as OpenAI documents them: the `file` object, the list and its query, the deletion
 * answer, and the upload form's text fields. Types, validation and the OpenAPI document come from these.
 */
import { z } from 'zod'

/** What a client may upload a file for (OpenAI's `purpose`). */
export const UPLOAD_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const

/** `expires_after[seconds]`: one hour to 30 days, as OpenAI accepts. */
export const MIN_EXPIRY_SECONDS = 3600
export const MAX_EXPIRY_SECONDS = 30 * 86_400
/** A `batch` file without `expires_after` expires after 30 days, as at OpenAI; other purposes are kept until deleted. */
export const BATCH_FILE_EXPIRY_SECONDS = 30 * 86_400

/** The upload form's text fields (all strings in a form), for validation and the OpenAPI document. */
export const uploadFields = z.strictObject({
  purpose: z.enum(UPLOAD_PURPOSES),
  'expires_after[anchor]': z.literal('created_at').optional(),
  'expires_after[seconds]': z
    .string()
    .regex(/^\d{1,9}$/, 'expected a whole number of seconds')
    .refine((v) => Number(v) >= MIN_EXPIRY_SECONDS && Number(v) <= MAX_EXPIRY_SECONDS, `expected ${MIN_EXPIRY_SECONDS} to ${MAX_EXPIRY_SECONDS} seconds`)
    .optional(),
})

export const fileObject = z.looseObject({
  id: z.string(),
  object: z.literal('file'),
  bytes: z.number(),
  created_at: z.number(),
  expires_at: z.number().nullable(),
  filename: z.string(),
  purpose: z.string(),
  status: z.literal('processed'),
  status_details: z.null(),
})

export const fileList = z.looseObject({
  object: z.literal('list'),
  data: z.array(fileObject),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
})

export const fileDeleted = z.looseObject({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) })

/** GET /v1/files's query: OpenAI's `after`, `limit` (1 to 10,000, default 10,000), `order` (default desc), `purpose`. */
export const fileListQuery = z.strictObject({
  after: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  order: z.enum(['asc', 'desc']).default('desc'),
  purpose: z.string().min(1).max(100).optional(),
})
