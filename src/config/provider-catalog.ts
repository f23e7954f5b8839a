/**
 * @module Known provider types: how each is configured from the environment and where its API lives by default.
 * Adding an OpenAI-compatible provider is one row here.
 */

export interface ProviderTypeInfo {
  /** Environment prefix: `<PREFIX>_API_KEY`, `<PREFIX>_BASE_URL`, `<PREFIX>_MODELS`. */
  envPrefix: string
  /** Which adapter in plugins/providers speaks to it. */
  adapter: 'openai-compatible' | 'azure-openai' | 'anthropic' | 'gemini'
  defaultBaseUrl?: string
  /** Local servers: configured by a base URL alone, the key is optional. */
  keyOptional?: boolean
  /** Speaks `/v1/responses` natively, so the gateway forwards it untouched. */
  nativeResponses?: boolean
}

export const PROVIDER_TYPES = {
  openai: { envPrefix: 'OPENAI', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.openai.com/v1', nativeResponses: true },
  azure: { envPrefix: 'AZURE', adapter: 'azure-openai', nativeResponses: true },
  groq: { envPrefix: 'GROQ', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.groq.com/openai/v1', nativeResponses: true },
  xai: { envPrefix: 'XAI', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.x.ai/v1', nativeResponses: true },
  deepseek: { envPrefix: 'DEEPSEEK', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.deepseek.com/v1' },
  mistral: { envPrefix: 'MISTRAL', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.mistral.ai/v1' },
  openrouter: { envPrefix: 'OPENROUTER', adapter: 'openai-compatible', defaultBaseUrl: 'https://openrouter.ai/api/v1', nativeResponses: true },
  together: { envPrefix: 'TOGETHER', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.together.xyz/v1' },
  fireworks: { envPrefix: 'FIREWORKS', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.fireworks.ai/inference/v1' },
  cerebras: { envPrefix: 'CEREBRAS', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.cerebras.ai/v1' },
  perplexity: { envPrefix: 'PERPLEXITY', adapter: 'openai-compatible', defaultBaseUrl: 'https://api.perplexity.ai' },
  ollama: { envPrefix: 'OLLAMA', adapter: 'openai-compatible', defaultBaseUrl: 'http://localhost:11434/v1', keyOptional: true },
  vllm: { envPrefix: 'VLLM', adapter: 'openai-compatible', keyOptional: true, nativeResponses: true },
  lmstudio: { envPrefix: 'LMSTUDIO', adapter: 'openai-compatible', defaultBaseUrl: 'http://localhost:1234/v1', keyOptional: true },
  anthropic: { envPrefix: 'ANTHROPIC', adapter: 'anthropic', defaultBaseUrl: 'https://api.anthropic.com/v1' },
  gemini: { envPrefix: 'GEMINI', adapter: 'gemini', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
} as const satisfies Record<string, ProviderTypeInfo>

export type ProviderType = keyof typeof PROVIDER_TYPES
export const PROVIDER_TYPE_NAMES = Object.keys(PROVIDER_TYPES) as ProviderType[]
