import { defineProvider } from '../../../src/providers/manifest.ts'

/** Prices and limits from Google's Gemini API pricing and models pages as of 2026-11. */
export const geminiManifest = defineProvider({
  id: 'gemini',
  summary: 'Google Gemini API: chat requests translated to generateContent and streamGenerateContent, answers and streams back.',
  types: {
    gemini: {
      envPrefix: 'GEMINI',
      defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      parameters: { style: 'translated' },
      modelPath: { collections: ['models', 'tunedModels'] },
      passthrough: {
        root: '/v1beta',
        paths: ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'].map((method) => ({
          method: 'POST' as const,
          path: `models/{model}:${method}`,
          model: 'path' as const,
        })),
      },
      // Batch mode: 50 % of the interactive price (Gemini API pricing page).
      batchPriceMultiplier: 0.5,
      prices: {
        'gemini-2.5-pro': { input: 1.25, cached_input: 0.31, output: 10 },
        'gemini-2.5-flash': { input: 0.3, cached_input: 0.075, output: 2.5 },
        'gemini-2.5-flash-lite': { input: 0.1, cached_input: 0.025, output: 0.4 },
        'gemini-embedding-001': { input: 0.15, output: 0 },
        // Images: the Gemini image model by tokens (an image is 1,290 output tokens), Imagen per image.
        'gemini-2.5-flash-image': { input: 0.3, output: 30 },
        'imagen-4.0-generate-001': { input: 0, output: 0, per_unit: { unit: 'image', usd: 0.04 } },
        'imagen-4.0-fast-generate-001': { input: 0, output: 0, per_unit: { unit: 'image', usd: 0.02 } },
        'imagen-4.0-ultra-generate-001': { input: 0, output: 0, per_unit: { unit: 'image', usd: 0.06 } },
      },
      outputLimits: {
        'gemini-2.5-pro': 65_536,
        'gemini-2.5-flash': 65_536,
        'gemini-2.0-flash': 8_192,
      },
    },
  },
})
