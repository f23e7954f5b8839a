import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const ideRequestShapesConfig = z.object({})

export const ideRequestShapesManifest = {
  id: 'ide-request-shapes',
  stage: 'resolve',
  order: 5,
  summary: 'Accepts the Responses-style chat bodies IDE agents send (input, flat and custom tools) and answers them as chat completions.',
  features: [],
  config: ideRequestShapesConfig,
} as const satisfies PluginManifest<typeof ideRequestShapesConfig>
