/**
 * @module The provider batch APIs by provider type: which provider types have a batch API the gateway submits to
 * (the others' lines are run by the gateway itself). The translating ones use their live adapter's chat translation
 * (`ProviderAdapter.chatTranslation`), so a batch line is translated exactly as the same live request would be.
 * One instance per type, made on first use.
 */
import { providerAdapters } from '../../../plugins/index.ts'
import type { ProviderType } from '../../config/provider-catalog.ts'
import type { ChatTranslation } from '../../providers/types.ts'
import type { ProviderBatchApi } from '../provider-batch-api.ts'
import { anthropicBatchApi } from './anthropic/batch-api.ts'
import { geminiBatchApi } from './gemini/batch-api.ts'
import { openaiBatchApi } from './openai/batch-api.ts'
import { azureDialect, groqDialect, openaiDialect } from './openai/dialects.ts'

function translationOf(adapterId: string): ChatTranslation {
  const translation = providerAdapters[adapterId]?.chatTranslation
  if (!translation) throw new Error(`the ${adapterId} adapter has no chat translation`)
  return translation
}

const FAMILIES: Partial<Record<ProviderType, () => ProviderBatchApi>> = {
  openai: () => openaiBatchApi(openaiDialect),
  groq: () => openaiBatchApi(groqDialect),
  azure: () => openaiBatchApi(azureDialect),
  anthropic: () => anthropicBatchApi(translationOf('anthropic')),
  gemini: () => geminiBatchApi(translationOf('gemini')),
}

const made = new Map<ProviderType, ProviderBatchApi | undefined>()

/** The batch API of a provider type, or undefined when the provider has none the gateway speaks. */
export function providerBatchApi(type: ProviderType): ProviderBatchApi | undefined {
  if (made.has(type)) return made.get(type)
  const api = FAMILIES[type]?.()
  made.set(type, api)
  return api
}
