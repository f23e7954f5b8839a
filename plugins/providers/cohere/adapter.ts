/**
 * @module Cohere, for rerank: the shared `/v1/rerank` request becomes Cohere's v2 `/v2/rerank` (documents as
 * strings; `return_documents`, which v2 no longer takes, stays with the gateway), and its answer the shared one: the
 * results with each document from the request when asked, the billed search units as `usage.search_units` (priced
 * per unit) and Cohere's token count, when it gives one, as `usage.total_tokens`. Errors are Cohere's `{message}`.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { jsonAnswer, parsedAnswer } from '../../../src/pipeline/json-answer.ts'
import { rerankDocumentTexts, sharedRerankAnswer } from '../../../src/protocols/rerank/answer.ts'
import { fetchModelIds } from '../../../src/providers/model-list.ts'
import { rerankOnlyChat } from '../../../src/providers/rerank-only.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { upstreamUrl } from '../../../src/providers/upstream-url.ts'

type Json = Record<string, unknown>

/** Fields of the shared shape that Cohere's v2 rerank takes as they are. */
const PASSED_ON = ['top_n', 'max_tokens_per_doc'] as const

function cohereHeaders(provider: ProviderInstance): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`
  return headers
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/** The answer's usage: the billed search units, and Cohere's input tokens where it reports them. */
function usageOf(meta: Json | undefined): Json {
  const billed = (meta?.billed_units ?? {}) as Json
  const tokens = num((meta?.tokens as Json | undefined)?.input_tokens)
  return { search_units: num(billed.search_units), ...(tokens > 0 ? { total_tokens: tokens } : {}) }
}

async function rerank(call: AdapterCall): Promise<UpstreamResult> {
  const documents = rerankDocumentTexts(call.body)
  const request: Json = { model: call.target.model, query: call.body.query, documents }
  for (const field of PASSED_ON) if (call.body[field] !== undefined && call.body[field] !== null) request[field] = call.body[field]
  const res = await fetchUpstream(call, { url: upstreamUrl(call.provider.baseUrl)`/v2/rerank`, headers: cohereHeaders(call.provider), body: JSON.stringify(request) })
  if (res instanceof GatewayError) return res
  const answer = (parsedAnswer(res) ?? (await res.json().catch(() => ({})))) as Json
  if (!Array.isArray(answer.results)) return upstreamFailures.unexpectedShape(call.provider.name, 'expected a results array')
  const shared = sharedRerankAnswer({
    model: call.target.model,
    ranked: answer.results,
    documents,
    returnDocuments: call.body.return_documents === true,
    usage: usageOf(answer.meta as Json | undefined),
  })
  if (!shared) return upstreamFailures.unexpectedShape(call.provider.name, 'expected each result to be the index of a document sent and its relevance_score')
  if (typeof answer.id === 'string') shared.id = answer.id
  return jsonAnswer(JSON.stringify(shared), shared, { status: 200, headers: { 'content-type': 'application/json' } })
}

/** A page of `GET /v1/models?endpoint=rerank`: `{models: [{name}], next_page_token}`. */
export function cohereModelPage(body: unknown): { ids: string[]; next?: string } | undefined {
  const page = body as { models?: unknown; next_page_token?: unknown } | undefined
  if (!Array.isArray(page?.models)) return undefined
  const ids = page.models.map((m) => (typeof m?.name === 'string' ? m.name : '')).filter((id: string) => id.length > 0)
  return { ids, next: typeof page.next_page_token === 'string' ? page.next_page_token : undefined }
}

export const cohereAdapter: ProviderAdapter = {
  id: 'cohere',
  chatCompletions: rerankOnlyChat,
  rerank,
  listModels: (provider, signal) =>
    fetchModelIds(
      {
        provider: provider.name,
        url: (pageToken) => upstreamUrl(provider.baseUrl, { endpoint: 'rerank', page_token: pageToken })`/v1/models`,
        headers: cohereHeaders(provider),
        read: cohereModelPage,
      },
      signal,
    ),
}
