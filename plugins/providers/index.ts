/**
 * @module The registry of provider manifests: typed data only (no adapter code), so the configuration can derive
 * the provider catalogue from it without loading any adapter. The adapters themselves are registered in
 * plugins/index.ts; plugins/providers/registry.test.ts checks that both lists and the folders agree.
 */
import { anthropicManifest } from './anthropic/manifest.ts'
import { azureOpenaiManifest } from './azure-openai/manifest.ts'
import { bedrockManifest } from './bedrock/manifest.ts'
import { geminiManifest } from './gemini/manifest.ts'
import { vertexManifest } from './vertex/manifest.ts'
import { openaiCompatibleManifest } from './openai-compatible/manifest.ts'
import { cohereManifest } from './cohere/manifest.ts'
import { voyageManifest } from './voyage/manifest.ts'

export const providerManifests = [
  openaiCompatibleManifest,
  azureOpenaiManifest,
  anthropicManifest,
  geminiManifest,
  bedrockManifest,
  vertexManifest,
  cohereManifest,
  voyageManifest,
] as const
