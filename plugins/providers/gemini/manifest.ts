import { z } from 'zod'

export const geminiManifest = {
  id: 'gemini',
  summary: 'Google Gemini generateContent: chat requests, answers and streams translated both ways (tools with gateway-made ids, thought signatures, thinking and cached-token usage).',
  config: z.object({}),
} as const
