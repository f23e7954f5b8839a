import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const usageMeterConfig = z.object({})

export const usageMeterManifest = {
  id: 'usage-meter',
  stage: 'observe',
  order: 10,
  summary: 'One usage record per request (the upstream usage, or counted with the tokenizer), with its cost from the price table.',
  features: ['usage'],
  captures: { pricedUsage: 'metered' },
  config: usageMeterConfig,
} as const satisfies PluginManifest<typeof usageMeterConfig>
