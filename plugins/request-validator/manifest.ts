import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const requestValidatorConfig = z.object({})

export const requestValidatorManifest = {
  id: 'request-validator',
  stage: 'resolve',
  order: 10,
  summary: 'Rejects unreadable or malformed request bodies with a 400 naming the field.',
  features: [],
  config: requestValidatorConfig,
} as const satisfies PluginManifest<typeof requestValidatorConfig>
