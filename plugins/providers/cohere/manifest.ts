import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Cohere's rerank models through its v2 API (`POST /v2/rerank`). Billed per search unit: one query with up to 100
 * documents (longer documents count as several), $2.00 per 1,000 searches for the Rerank 3 and 3.5 models on Cohere's
 * pricing page (2026-11), so 0.002 USD per unit and nothing per token.
 */
const perSearch = { input: 0, output: 0, per_unit: { unit: 'search_unit' as const, usd: 0.002 } }

export const cohereManifest = defineProvider({
  id: 'cohere',
  summary: "Cohere's rerank API (v2) translated to and from the shared /v1/rerank shape; priced per search unit.",
  types: {
    cohere: {
      envPrefix: 'COHERE',
      defaultBaseUrl: 'https://api.cohere.com',
      parameters: { style: 'translated' },
      prices: { 'rerank-v3.5': perSearch, 'rerank-english-v3.0': perSearch, 'rerank-multilingual-v3.0': perSearch },
      outputLimits: {},
    },
  },
})
