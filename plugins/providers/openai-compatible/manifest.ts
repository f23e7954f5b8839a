import { defineProvider, type PassthroughRules, type ProviderTypeRow } from '../../../src/providers/manifest.ts'

/** The governed pass-through's paths of an OpenAI-style API whose SDKs address it under `root` (model in the body). */
function openaiPassthrough(root: string): PassthroughRules {
  const post = (path: string) => ({ method: 'POST' as const, path, model: 'body' as const })
  return { root, paths: [post('chat/completions'), post('responses'), post('completions'), post('embeddings')] }
}

/** A compatible API that accepts none of OpenAI's own fields and whose models the gateway has no table for. */
function compatible(envPrefix: string, extra: Partial<ProviderTypeRow>): ProviderTypeRow {
  const root = extra.defaultBaseUrl ? new URL(extra.defaultBaseUrl).pathname.replace(/\/$/, '') : '/v1'
  return { envPrefix, parameters: { style: 'compatible', acceptsOpenAIOnly: [] }, prices: {}, outputLimits: {}, passthrough: openaiPassthrough(root), ...extra }
}

/**
 * OpenAI and every OpenAI-compatible API. Adding such a provider is one row here. Prices and limits from each
 * provider's public pricing and model pages as of 2026-11 (standard tier; OpenAI's batch discount as its row's batchPriceMultiplier).
 */
export const openaiCompatibleManifest = defineProvider({
  id: 'openai-compatible',
  summary: 'OpenAI and OpenAI-compatible APIs: requests and answers (JSON and SSE) pass through apart from the model id.',
  types: {
    openai: {
      envPrefix: 'OPENAI',
      defaultBaseUrl: 'https://api.openai.com/v1',
      nativeResponses: true,
      parameters: { style: 'openai' },
      passthrough: openaiPassthrough('/v1'),
      // The Batch API: 50 % of these prices (OpenAI's pricing page).
      batchPriceMultiplier: 0.5,
      prices: {
        'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
        'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
        'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
        'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
        'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
        'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
        'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
        'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
        o3: { input: 2, cached_input: 0.5, output: 8 },
        'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
        'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
        // Images: the GPT image models by tokens (text input, image output), DALL·E per image by size and quality.
        'gpt-image-1': { input: 5, cached_input: 1.25, output: 40 },
        'gpt-image-1-mini': { input: 2, cached_input: 0.2, output: 8 },
        'dall-e-3': {
          input: 0,
          output: 0,
          per_unit: { unit: 'image', usd: 0.04, variants: { '1024x1792/*': 0.08, '1792x1024/*': 0.08, '*/hd': 0.08, '1024x1792/hd': 0.12, '1792x1024/hd': 0.12 } },
        },
        'dall-e-2': { input: 0, output: 0, per_unit: { unit: 'image', usd: 0.02, variants: { '256x256/*': 0.016, '512x512/*': 0.018 } } },
        // Legacy completions.
        'gpt-3.5-turbo-instruct': { input: 1.5, output: 2 },
        'davinci-002': { input: 2, output: 2 },
        'babbage-002': { input: 0.4, output: 0.4 },
        // Speech to text: whisper per second of audio ($0.006 a minute); the GPT-4o transcribe models by tokens, the
        // input at the audio token price (a prompt's few text tokens cost less: $2.50 and $1.25 per million).
        'whisper-1': { input: 0, output: 0, per_unit: { unit: 'audio_second', usd: 0.0001 } },
        'gpt-4o-transcribe': { input: 6, output: 10 },
        'gpt-4o-mini-transcribe': { input: 3, output: 5 },
        // Embeddings: input tokens only.
        'text-embedding-3-small': { input: 0.02, output: 0 },
        'text-embedding-3-large': { input: 0.13, output: 0 },
        'text-embedding-ada-002': { input: 0.1, output: 0 },
        // Speech: tts-1 and tts-1-hd per character of input; gpt-4o-mini-tts by tokens (text in, audio out).
        'tts-1': { input: 0, output: 0, per_unit: { unit: 'character', usd: 15 / 1_000_000 } },
        'tts-1-hd': { input: 0, output: 0, per_unit: { unit: 'character', usd: 30 / 1_000_000 } },
        'gpt-4o-mini-tts': { input: 0.6, output: 12 },
        // Moderations: free.
        'omni-moderation': { input: 0, output: 0 },
        'text-moderation': { input: 0, output: 0 },
      },
      outputLimits: {
        'gpt-4o': 16_384,
        'gpt-4o-mini': 16_384,
        'gpt-4.1': 32_768,
        'gpt-5': 128_000,
        o1: 100_000,
        o3: 100_000,
        'o4-mini': 100_000,
        'gpt-3.5-turbo': 4_096,
      },
    },
    groq: compatible('GROQ', {
      defaultBaseUrl: 'https://api.groq.com/openai/v1',
      nativeResponses: true,
      parameters: { style: 'compatible', acceptsOpenAIOnly: ['service_tier', 'metadata'] },
      prices: {
        'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
        'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
      },
      outputLimits: { 'llama-3.3-70b-versatile': 32_768 },
    }),
    xai: compatible('XAI', {
      defaultBaseUrl: 'https://api.x.ai/v1',
      nativeResponses: true,
      parameters: { style: 'compatible', acceptsOpenAIOnly: ['web_search_options'] },
      prices: { 'grok-4': { input: 3, cached_input: 0.75, output: 15 } },
    }),
    deepseek: compatible('DEEPSEEK', {
      defaultBaseUrl: 'https://api.deepseek.com/v1',
      prices: {
        'deepseek-chat': { input: 0.27, cached_input: 0.07, output: 1.1 },
        'deepseek-reasoner': { input: 0.55, cached_input: 0.14, output: 2.19 },
      },
      outputLimits: { 'deepseek-chat': 8_192, 'deepseek-reasoner': 64_000 },
    }),
    mistral: compatible('MISTRAL', {
      defaultBaseUrl: 'https://api.mistral.ai/v1',
      prices: {
        'mistral-large': { input: 2, output: 6 },
        'mistral-small': { input: 0.1, output: 0.3 },
        'mistral-embed': { input: 0.1, output: 0 },
      },
      outputLimits: { 'mistral-large': 32_768 },
    }),
    openrouter: compatible('OPENROUTER', {
      defaultBaseUrl: 'https://openrouter.ai/api/v1',
      nativeResponses: true,
      parameters: { style: 'compatible', acceptsOpenAIOnly: ['metadata', 'service_tier', 'prediction', 'modalities', 'prompt_cache_key', 'verbosity', 'web_search_options'] },
    }),
    // Jina AI: embeddings and rerank (`/v1/rerank`, the shape /v1/rerank serves); billed per token of the input.
    jina: compatible('JINA', {
      defaultBaseUrl: 'https://api.jina.ai/v1',
      prices: {
        'jina-reranker-v2-base-multilingual': { input: 0.05, output: 0 },
        'jina-reranker-m0': { input: 0.05, output: 0 },
        'jina-embeddings-v3': { input: 0.05, output: 0 },
      },
    }),
    together: compatible('TOGETHER', { defaultBaseUrl: 'https://api.together.xyz/v1' }),
    fireworks: compatible('FIREWORKS', { defaultBaseUrl: 'https://api.fireworks.ai/inference/v1' }),
    cerebras: compatible('CEREBRAS', { defaultBaseUrl: 'https://api.cerebras.ai/v1' }),
    perplexity: compatible('PERPLEXITY', { defaultBaseUrl: 'https://api.perplexity.ai' }),
    ollama: compatible('OLLAMA', {
      defaultBaseUrl: 'http://localhost:11434/v1',
      keyOptional: true,
    }),
    vllm: compatible('VLLM', { keyOptional: true, nativeResponses: true }),
    lmstudio: compatible('LMSTUDIO', {
      defaultBaseUrl: 'http://localhost:1234/v1',
      keyOptional: true,
    }),
  },
})
