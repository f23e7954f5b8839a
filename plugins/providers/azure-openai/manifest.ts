import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Azure deploys OpenAI's models: their prices and output limits are OpenAI's rows (looked up by model id), so
 * this row repeats none of them. It signs in with `api-key`, or with a Microsoft Entra ID token (`entra`).
 */
export const azureOpenaiManifest = defineProvider({
  id: 'azure-openai',
  summary:
    'Azure OpenAI and Azure AI Foundry: classic per-deployment URLs with api-version, the v1 API, or the Foundry models endpoint; api-key or Entra ID; the content-filter preamble chunk dropped.',
  types: {
    azure: {
      envPrefix: 'AZURE',
      apiVersion: true,
      nativeResponses: true,
      credentials: 'entra',
      parameters: { style: 'openai' },
      modelPath: { collections: [] },
      // Classic resources (a base URL ending in /openai): one deployment per model, named in the path.
      passthrough: {
        root: '/openai',
        paths: ['chat/completions', 'completions', 'embeddings'].map((operation) => ({
          method: 'POST' as const,
          path: `deployments/{model}/${operation}`,
          model: 'path' as const,
        })),
      },
      prices: {},
      outputLimits: {},
    },
  },
})
