import { z } from 'zod'
import { modelSelectorSchema } from '../../src/config/schema.ts'
import { definePluginManifest } from '../../src/pipeline/types.ts'

export const failoverConfig = z.strictObject({
  /** Ordered fallbacks per requested model name or `<provider>/<model>` selector. */
  targets: z.record(z.string().min(1), z.array(modelSelectorSchema).min(1)).default({}),
  /** Retries of the same target before moving to the next one. */
  max_retries: z.number().int().min(0).max(10).default(2),
  initial_backoff_ms: z.number().int().min(0).max(60_000).default(250),
  max_backoff_ms: z.number().int().min(0).max(300_000).default(4_000),
  /** A longer Retry-After moves on to the next target instead of waiting. */
  max_retry_after_ms: z.number().int().min(0).max(300_000).default(10_000),
  /** Client-facing statuses that are worth another try (timeouts and connection errors are 504/502). */
  retry_on_status: z.array(z.number().int().min(400).max(599)).default([429, 500, 502, 503, 504]),
  circuit_breaker: z
    .strictObject({
      /** Consecutive failures that open the circuit of a target. */
      failure_threshold: z.number().int().min(1).max(1000).default(5),
      /** How long an open circuit skips the target before one trial request. */
      cooldown_ms: z.number().int().min(100).max(3_600_000).default(30_000),
    })
    .prefault({}),
})
export type FailoverConfig = z.infer<typeof failoverConfig>

export const failoverManifest = definePluginManifest({
  id: 'failover',
  summary: 'Retries with backoff and jitter (honouring Retry-After), then fails over to the next target; a circuit breaker skips failing targets.',
  features: ['failover'],
  replaces: ['single-target-router'],
  config: failoverConfig,
})
