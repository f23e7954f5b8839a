import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const virtualModelResolverManifest = definePluginManifest({
  id: 'virtual-model-resolver',
  summary: 'Resolves the requested model (virtual model, <provider>/<model> selector or unique bare name) to a provider target.',
  features: [],
  config: noSettings,
})
