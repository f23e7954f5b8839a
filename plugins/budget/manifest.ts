import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'

export const budgetConfig = z.strictObject({
  /** Output tokens reserved when the request sets no max_tokens (settled with the real cost later). */
  default_output_tokens_estimate: z.number().int().min(0).default(1024),
})

export const budgetManifest = definePluginManifest({
  id: 'budget',
  summary: 'USD budgets per key and user path subtree over hour/day/week/month windows: the estimated cost is reserved before the call and settled after it.',
  features: ['budget'],
  /** Settled with the real usage. */
  captures: { usage: 'all' },
  config: budgetConfig,
})
