import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Vertex AI serves Google's Gemini models and Anthropic's Claude under the same model ids as their own APIs
 * (`gemini-2.5-pro`, `claude-sonnet-4-5@20250929`), at their list prices: those rows (gemini, anthropic) price and
 * limit them, so this row repeats none.
 */
export const vertexManifest = defineProvider({
  id: 'vertex',
  summary:
    'Google Vertex AI: Gemini through generateContent / streamGenerateContent and Claude through rawPredict / streamRawPredict, under projects/{p}/locations/{l}/publishers/…; bearer tokens from Application Default Credentials.',
  types: {
    vertex: {
      envPrefix: 'VERTEX',
      credentials: 'google',
      regionalBaseUrl: (location) => (location === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${location}-aiplatform.googleapis.com/v1`),
      parameters: { style: 'translated' },
      modelPath: { collections: [] },
      passthrough: {
        root: '/v1',
        paths: [
          ...['generateContent', 'streamGenerateContent', 'countTokens'].map((method) => `projects/{project}/locations/{location}/publishers/google/models/{model}:${method}`),
          ...['rawPredict', 'streamRawPredict'].map((method) => `projects/{project}/locations/{location}/publishers/anthropic/models/{model}:${method}`),
        ].map((path) => ({ method: 'POST' as const, path, model: 'path' as const })),
      },
      prices: {},
      outputLimits: {},
    },
  },
})
