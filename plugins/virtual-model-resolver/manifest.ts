import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const virtualModelResolverConfig = z.object({})

export const virtualModelResolverManifest = {
  id: 'virtual-model-resolver',
  stage: 'resolve',
  order: 20,
  summary: 'Resolves the requested model (virtual model, <provider>/<model> selector or unique bare name) to a provider target.',
  features: [],
  config: virtualModelResolverConfig,
} as const satisfies PluginManifest<typeof virtualModelResolverConfig>
