/**
 * @module The Batches API's bodies as zod schemas: the create request (checked by the request validator, and the
 * OpenAPI request body) and the answers (the OpenAPI document, and what schemathesis checks answers against).
 */
import { z } from 'zod'
import { MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS } from '../files/schemas.ts'

/** The endpoints a batch line may call: OpenAI's batchable ones the gateway serves. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/v1/completions'] as const

export const batchCreateRequest = z.strictObject({
  input_file_id: z.string().min(1).max(200),
  endpoint: z.enum(BATCH_ENDPOINTS, { error: `expected one of ${BATCH_ENDPOINTS.join(', ')}` }),
  completion_window: z.literal('24h', { error: "expected '24h'" }),
  metadata: z
    .record(z.string().max(64), z.string().max(512))
    .refine((m) => Object.keys(m).length <= 16, 'at most 16 keys')
    .nullish(),
  /** The output and error files' lifetime, as a file's `expires_after`: one hour to 30 days from their creation. */
  output_expires_after: z
    .strictObject({
      anchor: z.literal('created_at', { error: "expected 'created_at'" }),
      seconds: z.number().int().min(MIN_EXPIRY_SECONDS).max(MAX_EXPIRY_SECONDS),
    })
    .optional(),
})

export type BatchCreateRequest = z.infer<typeof batchCreateRequest>

const epochSeconds = z.number().int().nullable()

export const batchObject = z.looseObject({
  id: z.string(),
  object: z.literal('batch'),
  endpoint: z.string(),
  errors: z
    .looseObject({
      object: z.literal('list'),
      data: z.array(z.looseObject({ code: z.string(), message: z.string(), param: z.string().nullable(), line: z.number().int().nullable() })),
    })
    .nullable(),
  input_file_id: z.string(),
  completion_window: z.string(),
  status: z.enum(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  created_at: z.number().int(),
  in_progress_at: epochSeconds,
  expires_at: epochSeconds,
  finalizing_at: epochSeconds,
  completed_at: epochSeconds,
  failed_at: epochSeconds,
  expired_at: epochSeconds,
  cancelling_at: epochSeconds,
  cancelled_at: epochSeconds,
  request_counts: z.looseObject({ total: z.number().int(), completed: z.number().int(), failed: z.number().int() }),
  metadata: z.record(z.string(), z.string()).nullable(),
})

export const batchList = z.looseObject({
  object: z.literal('list'),
  data: z.array(batchObject),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
})
