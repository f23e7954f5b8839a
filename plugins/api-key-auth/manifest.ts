import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const apiKeyAuthConfig = z.object({})

export const apiKeyAuthManifest = {
  id: 'api-key-auth',
  stage: 'auth',
  order: 10,
  summary:
    "Authenticates every /v1 request with the master key or a managed API key (Authorization: Bearer or x-api-key) and attributes it to a user path (X-Gateway-User-Path, within the key's own path).",
  features: [],
  config: apiKeyAuthConfig,
} as const satisfies PluginManifest<typeof apiKeyAuthConfig>
