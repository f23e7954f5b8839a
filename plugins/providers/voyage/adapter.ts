/**
 * @module Voyage AI, for rerank: the shared `/v1/rerank` request becomes Voyage's `/rerank` (`top_n` as `top_k`,
 * documents as strings, `return_documents` false: the gateway adds the documents from the request itself, so
 * they are not sent back), and Voyage's `{data, usage}` answer the shared `{results, usage}`. Voyage bills the
 * tokens it reports (`usage.total_tokens`). Errors are Voyage's `{detail}`.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { jsonAnswer, parsedAnswer } from '../../../src/pipeline/json-answer.ts'
import { rerankDocumentTexts, sharedRerankAnswer } from '../../../src/protocols/rerank/answer.ts'
import { rerankOnlyChat } from '../../../src/providers/rerank-only.ts'
import type { AdapterCall, ProviderAdapter, UpstreamResult } from '../../../src/providers/types.ts'
import { upstreamError, upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import { fetchUpstream, type UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import { upstreamUrl } from '../../../src/providers/upstream-url.ts'

type Json = Record<string, unknown>

/** Voyage's rerankers; it has no model list to fetch (the catalogue adds VOYAGE_MODELS). */
export const VOYAGE_RERANKERS = ['rerank-2.5', 'rerank-2.5-lite', 'rerank-2', 'rerank-2-lite']

/** Voyage says what is wrong in `detail` (a string, or FastAPI's list of field errors). */
function voyageError(call: AdapterCall): NonNullable<UpstreamHttpRequest['toError']> {
  return (status, body, text, headers) => {
    const detail = (body as { detail?: unknown } | undefined)?.detail
    const message = typeof detail === 'string' ? detail : detail !== undefined ? JSON.stringify(detail) : undefined
    const normalised = message === undefined ? body : { error: { message, code: null, param: null } }
    return upstreamError({ provider: call.provider.name, status, body: normalised, text, headers, secrets: call.limits.secrets })
  }
}

async function rerank(call: AdapterCall): Promise<UpstreamResult> {
  const documents = rerankDocumentTexts(call.body)
  const request: Json = { model: call.target.model, query: call.body.query, documents, return_documents: false }
  if (typeof call.body.top_n === 'number') request.top_k = call.body.top_n
  if (typeof call.body.truncation === 'boolean') request.truncation = call.body.truncation
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (call.provider.apiKey) headers.authorization = `Bearer ${call.provider.apiKey}`
  const res = await fetchUpstream(call, { url: upstreamUrl(call.provider.baseUrl)`/rerank`, headers, body: JSON.stringify(request), toError: voyageError(call) })
  if (res instanceof GatewayError) return res
  const answer = (parsedAnswer(res) ?? (await res.json().catch(() => ({})))) as Json
  if (!Array.isArray(answer.data)) return upstreamFailures.unexpectedShape(call.provider.name, 'expected a data array')
  const usage = answer.usage as Json | undefined
  const shared = sharedRerankAnswer({
    model: typeof answer.model === 'string' ? answer.model : call.target.model,
    ranked: answer.data,
    documents,
    returnDocuments: call.body.return_documents === true,
    usage: { total_tokens: typeof usage?.total_tokens === 'number' ? usage.total_tokens : 0 },
  })
  if (!shared) return upstreamFailures.unexpectedShape(call.provider.name, 'expected each item of data to be the index of a document sent and its relevance_score')
  return jsonAnswer(JSON.stringify(shared), shared, { status: 200, headers: { 'content-type': 'application/json' } })
}

export const voyageAdapter: ProviderAdapter = {
  id: 'voyage',
  chatCompletions: rerankOnlyChat,
  rerank,
  listModels: async () => VOYAGE_RERANKERS,
}
