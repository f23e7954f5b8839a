import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Voyage AI's rerankers (`POST /v1/rerank`). Billed per token: the query's tokens once per document plus the
 * documents' (the `usage.total_tokens` Voyage reports); per million tokens from Voyage's pricing page (2026-11).
 */
export const voyageManifest = defineProvider({
  id: 'voyage',
  summary: "Voyage AI's rerank API translated to and from the shared /v1/rerank shape (top_k, data); priced per token.",
  types: {
    voyage: {
      envPrefix: 'VOYAGE',
      defaultBaseUrl: 'https://api.voyageai.com/v1',
      parameters: { style: 'translated' },
      prices: {
        'rerank-2.5': { input: 0.05, output: 0 },
        'rerank-2.5-lite': { input: 0.02, output: 0 },
        'rerank-2': { input: 0.05, output: 0 },
        'rerank-2-lite': { input: 0.02, output: 0 },
      },
      outputLimits: {},
    },
  },
})
