/**
 * @module The provider batch APIs by provider type: which provider types have a batch API the gateway submits to
 * (the others' lines are run by the gateway itself). The translating ones use their live adapter's chat translation
 * (`ProviderAdapter.chatTranslation`), so a batch line is translated exactly as the same live request would be.
 * The adapters come from the composition root (the same ones the live requests use); one instance per type, made
 * on first use.
 */
import type { ProviderType } from '../../config/provider-catalog.ts'
import type { ChatTranslation, ProviderAdapter } from '../../providers/types.ts'
import type { ProviderBatchApi } from '../provider-batch-api.ts'
import { anthropicBatchApi } from './anthropic/batch-api.ts'
import { geminiBatchApi } from './gemini/batch-api.ts'
import { openaiBatchApi } from './openai/batch-api.ts'
import { azureDialect, groqDialect, openaiDialect } from './openai/dialects.ts'

type Adapters = Readonly<Record<string, ProviderAdapter>>

function translationOf(adapters: Adapters, adapterId: string): ChatTranslation {
  const translation = adapters[adapterId]?.chatTranslation
  if (!translation) throw new Error(`the ${adapterId} adapter has no chat translation`)
  return translation
}

const FAMILIES: Partial<Record<ProviderType, (adapters: Adapters) => ProviderBatchApi>> = {
  openai: () => openaiBatchApi(openaiDialect),
  groq: () => openaiBatchApi(groqDialect),
  azure: () => openaiBatchApi(azureDialect),
  anthropic: (adapters) => anthropicBatchApi(translationOf(adapters, 'anthropic')),
  gemini: (adapters) => geminiBatchApi(translationOf(adapters, 'gemini')),
}

/** Finds the batch API of a provider type: undefined when the provider has none the gateway speaks. */
export type ProviderBatchApis = (type: ProviderType) => ProviderBatchApi | undefined

/** The provider batch APIs over these adapters. */
export function providerBatchApis(adapters: Adapters): ProviderBatchApis {
  const made = new Map<ProviderType, ProviderBatchApi | undefined>()
  return (type) => {
    if (made.has(type)) return made.get(type)
    const api = FAMILIES[type]?.(adapters)
    made.set(type, api)
    return api
  }
}
