import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'

export const rateLimiterConfig = z.strictObject({
  /** Output tokens counted up front when the request sets no max_tokens (settled with the real count later). */
  default_output_tokens_estimate: z.number().int().min(0).default(256),
})

export const rateLimiterManifest = definePluginManifest({
  id: 'rate-limiter',
  summary: 'Requests and tokens per minute and per day, and concurrent requests, per key and per user path; 429 with Retry-After and x-ratelimit-* headers.',
  features: ['budget'],
  /** Settled with the real usage. */
  captures: { usage: 'all' },
  config: rateLimiterConfig,
})
