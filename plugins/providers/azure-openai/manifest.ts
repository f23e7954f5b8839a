import { z } from 'zod'

export const azureOpenaiManifest = {
  id: 'azure-openai',
  summary: 'Azure OpenAI: deployment URLs with api-version (or the v1 API), the api-key header, and its empty-choices stream chunks dropped.',
  config: z.object({}),
} as const
