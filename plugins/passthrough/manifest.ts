import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const passthroughManifest = definePluginManifest({
  id: 'passthrough',
  summary:
    "Governed pass-through (/p/{provider}/…): checks the path against the provider's allow-list and names the request's model as <provider>/<model>, so keys, model access, limits, budgets, usage and the audit log govern it like any request.",
  features: [],
  config: noSettings,
})
