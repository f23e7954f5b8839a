import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const apiKeyAuthConfig = z.object({})

export const apiKeyAuthManifest = {
  id: 'api-key-auth',
  stage: 'auth',
  order: 10,
  summary: 'Authenticates every /v1 request with the master key (Authorization: Bearer or x-api-key).',
  features: [],
  config: apiKeyAuthConfig,
} as const satisfies PluginManifest<typeof apiKeyAuthConfig>
