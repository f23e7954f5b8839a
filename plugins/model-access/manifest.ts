import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const modelAccessConfig = z.object({})

export const modelAccessManifest = {
  id: 'model-access',
  stage: 'resolve',
  // After virtual-model-resolver (20): the resolved target selector counts as well as the requested name.
  order: 30,
  summary: "Refuses (403 model_not_allowed) a model outside the managed key's allowed_models.",
  features: [],
  config: modelAccessConfig,
} as const satisfies PluginManifest<typeof modelAccessConfig>
