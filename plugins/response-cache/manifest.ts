import { z } from 'zod'
import { definePluginManifest } from '../../src/pipeline/types.ts'
import { isCacheable } from '../../src/protocols/endpoints.ts'

export const CACHE_SCOPES = ['key', 'user_path', 'global'] as const

export const responseCacheConfig = z.strictObject({
  /**
   * Who shares entries: `key` (the default) each key its own (the master key and keyless callers are one
   * principal each); `user_path` every caller under the same user path; `global` every caller. A shared entry
   * tells a caller that someone else asked the same thing (a hit is faster and says `X-Cache: HIT`).
   */
  scope: z.enum(CACHE_SCOPES).default('key'),
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(30 * 24 * 3600)
    .default(300),
  /** Answers larger than this are not cached. */
  max_entry_bytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Identical requests in flight at the same time wait for the first one instead of calling the upstream. */
  coalesce: z.boolean().default(true),
  /** How long a waiting duplicate waits for the first one before calling the upstream itself. */
  coalesce_wait_ms: z.number().int().min(1).max(600_000).default(120_000),
})
export type ResponseCacheConfig = z.infer<typeof responseCacheConfig>

export const responseCacheManifest = definePluginManifest({
  id: 'response-cache',
  summary: 'Exact-match cache of successful chat completions (streams replayed), with request coalescing.',
  features: ['cache'],
  // The answer before the output hooks: a hit goes through them again (src/pipeline/route-answer.ts).
  captures: { routeAnswer: isCacheable },
  config: responseCacheConfig,
})
