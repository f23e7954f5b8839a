import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'

export const requestValidatorManifest = definePluginManifest({
  id: 'request-validator',
  summary: 'Rejects unreadable or malformed request bodies with a 400 naming the field.',
  features: [],
  config: noSettings,
})
