import { definePluginManifest, noSettings } from '../../src/pipeline/types.ts'
import { isMetered } from '../../src/protocols/endpoints.ts'

export const usageMeterManifest = definePluginManifest({
  id: 'usage-meter',
  summary: 'One usage record per request (the upstream usage, or counted with the tokenizer), with its cost from the price table.',
  features: ['usage'],
  captures: { pricedUsage: isMetered },
  config: noSettings,
})
