import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Bedrock prices model by model (Anthropic's at Anthropic's list prices; cross-region inference profiles, whose
 * ids start with a geography, at the same price), from the Amazon Bedrock pricing page as of 2026-11, on-demand.
 */
const ON_DEMAND = {
  'anthropic.claude-opus-4-5': { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25 },
  'anthropic.claude-opus-4': { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
  'anthropic.claude-sonnet-4': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
  'anthropic.claude-haiku-4-5': { input: 1, cached_input: 0.1, cache_write: 1.25, output: 5 },
  'anthropic.claude-3-7-sonnet': { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
  'anthropic.claude-3-5-haiku': { input: 0.8, cached_input: 0.08, cache_write: 1, output: 4 },
  'amazon.nova-pro-v1': { input: 0.8, cached_input: 0.2, output: 3.2 },
  'amazon.nova-lite-v1': { input: 0.06, cached_input: 0.015, output: 0.24 },
  'amazon.nova-micro-v1': { input: 0.035, cached_input: 0.00875, output: 0.14 },
  'meta.llama3-3-70b-instruct': { input: 0.72, output: 0.72 },
  'mistral.mistral-large-2407': { input: 2, output: 6 },
  // Embeddings: input tokens only.
  'amazon.titan-embed-text-v2': { input: 0.02, output: 0 },
  'cohere.embed-english-v3': { input: 0.1, output: 0 },
  'cohere.embed-multilingual-v3': { input: 0.1, output: 0 },
}

const OUTPUT_LIMITS = {
  'anthropic.claude-opus-4-5': 64_000,
  'anthropic.claude-opus-4': 32_000,
  'anthropic.claude-sonnet-4': 64_000,
  'anthropic.claude-haiku-4-5': 64_000,
  'anthropic.claude-3-7-sonnet': 64_000,
  'anthropic.claude-3-5-haiku': 8_192,
  'amazon.nova-pro-v1': 10_000,
  'amazon.nova-lite-v1': 10_000,
  'amazon.nova-micro-v1': 10_000,
  'meta.llama3-3-70b-instruct': 8_192,
}

/** Cross-region inference profiles: the model id behind a geography (`us.anthropic.claude-…`, `global.…`). */
const GEOGRAPHIES = ['us', 'eu', 'apac', 'jp', 'au', 'ca', 'us-gov', 'global']

function withInferenceProfiles<T>(rows: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = { ...rows }
  for (const [model, value] of Object.entries(rows)) for (const geography of GEOGRAPHIES) out[`${geography}.${model}`] = value
  return out
}

export const bedrockManifest = defineProvider({
  id: 'bedrock',
  summary:
    'Amazon Bedrock: chat through Converse / ConverseStream (binary event stream decoded as it arrives), Anthropic models natively through InvokeModel for /v1/messages; SigV4 from the AWS credential chain.',
  types: {
    bedrock: {
      envPrefix: 'BEDROCK',
      credentials: 'aws',
      awsSigningName: 'bedrock',
      regionalBaseUrl: (region) => `https://bedrock-runtime.${region}.amazonaws.com`,
      parameters: { style: 'translated' },
      // Bedrock ids are one path segment (`anthropic.claude-sonnet-4-20250514-v1:0`, `us.meta.llama3-3-70b-instruct-v1:0`).
      modelPath: { collections: [] },
      passthrough: {
        root: '',
        paths: ['converse', 'converse-stream', 'invoke', 'invoke-with-response-stream', 'count-tokens'].map((operation) => ({
          method: 'POST' as const,
          path: `model/{model}/${operation}`,
          model: 'path' as const,
        })),
      },
      prices: withInferenceProfiles(ON_DEMAND),
      outputLimits: withInferenceProfiles(OUTPUT_LIMITS),
    },
  },
})
