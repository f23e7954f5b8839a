import { z } from 'zod'

export const openaiCompatibleManifest = {
  id: 'openai-compatible',
  summary: 'OpenAI and the OpenAI-compatible family (Groq, xAI, DeepSeek, Mistral, OpenRouter, Together, Fireworks, Cerebras, Perplexity, Ollama, vLLM, LM Studio): bodies pass through untouched.',
  config: z.object({}),
} as const
