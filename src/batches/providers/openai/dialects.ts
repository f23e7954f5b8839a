/**
 * @module Where an OpenAI-family provider keeps its Files and Batches APIs and how it is addressed: OpenAI and Groq
 * (`{base}/files`, `{base}/batches`, lines addressed `/v1/chat/completions`), Azure OpenAI (the classic resource's
 * `{base}/files?api-version=…` with lines addressed `/chat/completions` and `model` the deployment, or the v1 API).
 * Limits from each provider's batch guide as of 2026-11: OpenAI 50,000 requests and 200 MB per input file, Groq
 * 50,000 lines and 200 MB, Azure 100,000 requests and 200 MB (the gateway stays under the smallest).
 */
import type { ApiShape } from '../../../protocols/api-shape.ts'
import { chatApi } from '../../../protocols/chat/shape.ts'
import { completionsApi } from '../../../protocols/completions/shape.ts'
import { embeddingsApi } from '../../../protocols/embeddings/shape.ts'
import { responsesApi } from '../../../protocols/responses/shape.ts'
import type { ProviderInstance } from '../../../providers/types.ts'

export interface OpenAIBatchDialect {
  /** The APIs (of the lines' endpoint rows) this provider's batches take. */
  apis: ReadonlySet<ApiShape>
  /** The headers that carry the instance's API key (an Entra ID token is added by the request helper instead). */
  credentialHeaders(provider: ProviderInstance): Record<string, string>
  /** The query every call carries (Azure's `api-version`). */
  query(provider: ProviderInstance): Record<string, string> | undefined
  /** A line's `url` and the batch's `endpoint`, from its row's path (`/v1/chat/completions`). */
  linePath(provider: ProviderInstance, rowPath: string): string
  /** Why this instance has no batch API, when it has none. */
  unavailable?(provider: ProviderInstance): string | undefined
}

/** Requests and bytes of one input file, under every family member's limit. */
export const MAX_REQUESTS_PER_FILE = 50_000
export const MAX_BYTES_PER_FILE = 190 * 1024 * 1024

const bearer = (provider: ProviderInstance): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {})

export const openaiDialect: OpenAIBatchDialect = {
  apis: new Set([chatApi, responsesApi, embeddingsApi, completionsApi]),
  credentialHeaders: bearer,
  query: () => undefined,
  linePath: (_provider, rowPath) => rowPath,
}

/** Groq's batches take chat completions (its audio endpoints aside). */
export const groqDialect: OpenAIBatchDialect = { ...openaiDialect, apis: new Set([chatApi]) }

/** The GA version that has batches, as the live Azure adapter defaults to. */
const AZURE_API_VERSION = '2024-10-21'
const isAzureV1 = (provider: ProviderInstance) => /\/openai\/v1$/.test(provider.baseUrl)

export const azureDialect: OpenAIBatchDialect = {
  apis: new Set([chatApi]),
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'api-key': provider.apiKey } : {}),
  query: (provider) => (isAzureV1(provider) ? undefined : { 'api-version': provider.apiVersion ?? AZURE_API_VERSION }),
  // The classic resource addresses lines without the version prefix (`/chat/completions`).
  linePath: (provider, rowPath) => (isAzureV1(provider) ? rowPath : rowPath.replace(/^\/v1(?=\/)/, '')),
  unavailable: (provider) => (/\/models$/.test(provider.baseUrl) ? `Provider '${provider.name}' is an Azure AI Foundry models endpoint, which has no batch API.` : undefined),
}
