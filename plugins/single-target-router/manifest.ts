import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const singleTargetRouterConfig = z.object({})

export const singleTargetRouterManifest = {
  id: 'single-target-router',
  stage: 'route',
  order: 100,
  summary: 'Sends the request to its one resolved target through the provider adapter.',
  features: [],
  config: singleTargetRouterConfig,
} as const satisfies PluginManifest<typeof singleTargetRouterConfig>
