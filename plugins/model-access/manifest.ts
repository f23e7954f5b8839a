import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const modelAccessManifest = definePluginManifest({
  id: 'model-access',
  summary: "Refuses (403 model_not_allowed) a model outside the managed key's allowed_models.",
  features: [],
  config: noSettings,
})
