/**
 * @module The Uploads API's shapes as OpenAI documents them: creating an upload, its parts, completing it with the
 * ordered part ids, and the `upload` and `upload.part` objects.
 */
import { z } from 'zod'
import { fileObject, MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS, UPLOAD_PURPOSES } from './schemas.ts'

/** One part at most, as at OpenAI. */
export const MAX_PART_BYTES = 64 * 1024 * 1024
/** Parts one completion may name (a 512 MiB file in parts of 64 KiB takes 8,192). */
export const MAX_UPLOAD_PARTS = 10_000
/** An upload's parts are kept an hour after its creation, as at OpenAI. */
export const UPLOAD_LIFETIME_SECONDS = 3600

export const createUploadRequest = z.strictObject({
  bytes: z.number().int().min(0),
  filename: z.string().min(1).max(1000),
  mime_type: z.string().min(1).max(200),
  purpose: z.enum(UPLOAD_PURPOSES),
  expires_after: z.strictObject({ anchor: z.literal('created_at'), seconds: z.number().int().min(MIN_EXPIRY_SECONDS).max(MAX_EXPIRY_SECONDS) }).optional(),
})

export const completeUploadRequest = z.strictObject({
  part_ids: z.array(z.string().min(1).max(200)).min(1).max(MAX_UPLOAD_PARTS),
  /** The file's MD5 (hex), checked when given. */
  md5: z.string().max(64).optional(),
})

/** The part form's text fields, for the OpenAPI document: none (its one file part, `data`, is the row's `openapi.files`). */
export const uploadPartFields = z.strictObject({})

export const uploadObject = z.looseObject({
  id: z.string(),
  object: z.literal('upload'),
  bytes: z.number(),
  created_at: z.number(),
  expires_at: z.number(),
  filename: z.string(),
  purpose: z.string(),
  status: z.enum(['pending', 'completed', 'cancelled', 'expired']),
  file: fileObject.nullable(),
})

export const uploadPartObject = z.looseObject({ id: z.string(), object: z.literal('upload.part'), created_at: z.number(), upload_id: z.string() })
