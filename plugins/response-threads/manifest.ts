import { z } from 'zod'
import type { PluginManifest } from '../../src/pipeline/types.ts'

export const responseThreadsConfig = z.object({})

export const responseThreadsManifest = {
  id: 'response-threads',
  stage: 'resolve',
  order: 40,
  summary: 'Stores Responses API threads so previous_response_id continues a conversation on any provider.',
  features: [],
  /** The answer's output items join the stored thread. */
  captures: { responseBody: ['responses'] },
  config: responseThreadsConfig,
} as const satisfies PluginManifest<typeof responseThreadsConfig>
