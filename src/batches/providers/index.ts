/**
 * @module The provider batch APIs by provider type: which provider types have a batch API the gateway submits to
 * (the others' lines are run by the gateway itself). One instance per family, made on first use.
 */
import type { ProviderType } from '../../config/provider-catalog.ts'
import type { ProviderBatchApi } from '../provider-batch-api.ts'
import { openaiBatchApi } from './openai/batch-api.ts'
import { azureDialect, groqDialect, type OpenAIBatchDialect, openaiDialect } from './openai/dialects.ts'

const OPENAI_FAMILY: Partial<Record<ProviderType, OpenAIBatchDialect>> = { openai: openaiDialect, groq: groqDialect, azure: azureDialect }

const made = new Map<ProviderType, ProviderBatchApi | undefined>()

/** The batch API of a provider type, or undefined when the provider has none the gateway speaks. */
export function providerBatchApi(type: ProviderType): ProviderBatchApi | undefined {
  if (made.has(type)) return made.get(type)
  const dialect = OPENAI_FAMILY[type]
  const api = dialect ? openaiBatchApi(dialect) : undefined
  made.set(type, api)
  return api
}
