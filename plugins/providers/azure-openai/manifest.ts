import { defineProvider } from '../../../src/providers/manifest.ts'

/**
 * Azure deploys OpenAI's models: their prices and output limits are OpenAI's rows (looked up by model id), so
 * this row repeats none of them.
 */
export const azureOpenaiManifest = defineProvider({
  id: 'azure-openai',
  summary: 'Azure OpenAI: classic per-deployment URLs with api-version, or the v1 API; the content-filter preamble chunk dropped.',
  types: {
    azure: { envPrefix: 'AZURE', apiVersion: true, nativeResponses: true, parameters: { style: 'openai' }, modelPath: { collections: [] }, prices: {}, outputLimits: {} },
  },
})
