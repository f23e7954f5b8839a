import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const ideRequestShapesManifest = definePluginManifest({
  id: 'ide-request-shapes',
  summary: 'Accepts the Responses-style chat bodies IDE agents send (input, flat and custom tools) and answers them as chat completions.',
  features: [],
  config: noSettings,
})
