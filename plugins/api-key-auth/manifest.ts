import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const apiKeyAuthManifest = definePluginManifest({
  id: 'api-key-auth',
  summary:
    "Authenticates every /v1 request with the master key or a managed API key (Authorization: Bearer or x-api-key) and attributes it to a user path (X-Gateway-User-Path, within the key's own path).",
  features: [],
  config: noSettings,
})
