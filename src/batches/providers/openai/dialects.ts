/**
 * @module Where an OpenAI-family provider keeps its Files and Batches APIs and how it is addressed: OpenAI and Groq
 * (`{base}/files`, `{base}/batches`, lines addressed `/v1/chat/completions`), Azure OpenAI (the classic resource's
 * `{base}/files?api-version=…` with lines addressed `/chat/completions` and `model` the deployment, or the v1 API).
 * Limits from each provider's batch guide as of 2026-11: OpenAI 50,000 requests and 200 MB per input file, Groq
 * 50,000 lines and 200 MB, Azure 100,000 requests and 200 MB (the gateway stays under the smallest).
 */
import type { ProviderInstance } from '../../../providers/types.ts'

export interface OpenAIBatchDialect {
  /** The endpoint rows whose lines this provider's batches take. */
  endpoints: ReadonlySet<string>
  /** The headers that carry the instance's API key (an Entra ID token is added by the request helper instead). */
  credentialHeaders(provider: ProviderInstance): Record<string, string>
  /** The query every call carries (Azure's `api-version`). */
  query(provider: ProviderInstance): Record<string, string> | undefined
  /** A line's `url` and the batch's `endpoint` for a row's path (`chat/completions`). */
  linePath(provider: ProviderInstance, path: string): string
  /** Why this instance has no batch API, when it has none. */
  unavailable?(provider: ProviderInstance): string | undefined
}

/** Requests and bytes of one input file, under every family member's limit. */
export const MAX_REQUESTS_PER_FILE = 50_000
export const MAX_BYTES_PER_FILE = 190 * 1024 * 1024

/** The path under the base URL that each endpoint row's lines are addressed to. */
export const ENDPOINT_PATHS: Readonly<Record<string, string>> = {
  'chat.completions': 'chat/completions',
  responses: 'responses',
  embeddings: 'embeddings',
  completions: 'completions',
}

const bearer = (provider: ProviderInstance): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {})

export const openaiDialect: OpenAIBatchDialect = {
  endpoints: new Set(['chat.completions', 'responses', 'embeddings', 'completions']),
  credentialHeaders: bearer,
  query: () => undefined,
  linePath: (_provider, path) => `/v1/${path}`,
}

/** Groq's batches take chat completions (its audio endpoints aside). */
export const groqDialect: OpenAIBatchDialect = { ...openaiDialect, endpoints: new Set(['chat.completions']) }

/** The GA version that has batches, as the live Azure adapter defaults to. */
const AZURE_API_VERSION = '2024-10-21'
const isAzureV1 = (provider: ProviderInstance) => /\/openai\/v1$/.test(provider.baseUrl)

export const azureDialect: OpenAIBatchDialect = {
  endpoints: new Set(['chat.completions']),
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'api-key': provider.apiKey } : {}),
  query: (provider) => (isAzureV1(provider) ? undefined : { 'api-version': provider.apiVersion ?? AZURE_API_VERSION }),
  linePath: (provider, path) => (isAzureV1(provider) ? `/v1/${path}` : `/${path}`),
  unavailable: (provider) => (/\/models$/.test(provider.baseUrl) ? `Provider '${provider.name}' is an Azure AI Foundry models endpoint, which has no batch API.` : undefined),
}
