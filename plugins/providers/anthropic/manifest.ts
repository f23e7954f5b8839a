import { z } from 'zod'

export const anthropicManifest = {
  id: 'anthropic',
  summary: 'Anthropic Messages API: chat requests, answers and streams translated both ways (tools, images, cache and thinking usage).',
  config: z.object({}),
} as const
