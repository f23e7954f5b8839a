import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const singleTargetRouterManifest = definePluginManifest({
  id: 'single-target-router',
  summary: 'Sends the request to its one resolved target through the provider adapter.',
  features: [],
  config: noSettings,
})
