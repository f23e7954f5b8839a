/**
 * @module Cohere's and Voyage AI's rerank APIs as their public references describe them, for adapter and end-to-end
 * tests. Both score each document by the share of the query's words it holds (best first; ties keep the documents'
 * order) and record what they received.
 * - Cohere (`POST /v2/rerank`, bearer key): `model`, `query`, `documents` (strings only in v2), `top_n`,
 *   `max_tokens_per_doc`; answers `{id, results: [{index, relevance_score}], meta: {api_version, billed_units:
 *   {search_units}}}` (one search unit per query and up to 100 documents), no documents; errors `{id, message}`
 *   (401 for a wrong key, 404 for an unknown model, 400 for a bad body). `GET /v1/models?endpoint=rerank` lists
 *   `{models: [{name, endpoints}]}`.
 * - Voyage (`POST /v1/rerank`, bearer key): `query`, `documents` (strings), `model`, `top_k`, `return_documents`
 *   (default false), `truncation`; answers `{object: "list", data: [{relevance_score, index, document?}], model,
 *   usage: {total_tokens}}` (the query's tokens once per document plus the documents'); errors `{detail}`.
 */
import { type RecordedRequest, serveRecording } from './mock-openai-upstream.ts'

type Json = Record<string, any>

export const COHERE_RERANK_MODELS = ['rerank-v3.5', 'rerank-english-v3.0', 'rerank-multilingual-v3.0']
export const VOYAGE_RERANK_MODELS = ['rerank-2.5', 'rerank-2.5-lite', 'rerank-2', 'rerank-2-lite']

export interface MockRerankUpstream {
  url: string
  requests: RecordedRequest[]
  stop(): void
}

/** Tokens as the mocks count them: a word (or a run of punctuation) each. */
export function mockTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length
}

/** Every document's score (the share of the query's words it holds), best first. */
function ranked(query: string, documents: string[]): { index: number; relevance_score: number }[] {
  const words = query.toLowerCase().split(/\W+/).filter(Boolean)
  const scored = documents.map((d, index) => {
    const text = d.toLowerCase()
    const share = words.length ? words.filter((w) => text.includes(w)).length / words.length : 0
    return { index, relevance_score: Math.round((share - index * 1e-4) * 1e6) / 1e6 }
  })
  return scored.sort((a, b) => b.relevance_score - a.relevance_score)
}

const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((d) => typeof d === 'string')

export function startMockCohere(apiKey: string): MockRerankUpstream {
  const error = (status: number, message: string) => Response.json({ id: crypto.randomUUID(), message }, { status })
  const server = serveRecording((req, url, recorded) => {
    if (req.headers.get('authorization') !== `Bearer ${apiKey}`) return error(401, 'invalid api token')
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return Response.json({ models: COHERE_RERANK_MODELS.map((name) => ({ name, endpoints: ['rerank'], context_length: 4096 })) })
    }
    if (req.method !== 'POST' || url.pathname !== '/v2/rerank') return error(404, `route ${req.method} ${url.pathname} not found`)
    const body = (recorded.body ?? {}) as Json
    if (!COHERE_RERANK_MODELS.includes(body.model))
      return error(404, `model '${body.model}' not found, make sure the correct model ID was used and that you have access to the model.`)
    if (typeof body.query !== 'string' || body.query === '') return error(400, 'invalid request: query must be a non-empty string.')
    if (!stringList(body.documents)) return error(400, 'invalid request: documents must be a list of strings.')
    if (body.top_n !== undefined && (!Number.isInteger(body.top_n) || body.top_n < 1)) return error(400, 'invalid request: top_n must be a positive integer.')
    const results = ranked(body.query, body.documents).slice(0, body.top_n ?? body.documents.length)
    return Response.json({
      id: crypto.randomUUID(),
      results,
      meta: { api_version: { version: '2' }, billed_units: { search_units: Math.ceil(body.documents.length / 100) } },
    })
  })
  return { url: server.origin, requests: server.requests, stop: server.stop }
}

export function startMockVoyage(apiKey: string): MockRerankUpstream {
  const error = (status: number, detail: string) => Response.json({ detail }, { status })
  const server = serveRecording((req, url, recorded) => {
    if (req.headers.get('authorization') !== `Bearer ${apiKey}`) return error(401, 'Provided API key is invalid.')
    if (req.method !== 'POST' || url.pathname !== '/v1/rerank') return error(404, 'Not Found')
    const body = (recorded.body ?? {}) as Json
    if (!VOYAGE_RERANK_MODELS.includes(body.model)) return error(400, `Model ${body.model} is not supported. Supported models are ${VOYAGE_RERANK_MODELS.join(', ')}.`)
    if (typeof body.query !== 'string' || !stringList(body.documents)) return error(400, 'Request body is invalid: query must be a string and documents a list of strings.')
    if (body.top_k !== undefined && (!Number.isInteger(body.top_k) || body.top_k < 1)) return error(400, 'top_k must be a positive integer.')
    const documents: string[] = body.documents
    const data = ranked(body.query, documents)
      .slice(0, body.top_k ?? documents.length)
      .map((r) =>
        body.return_documents === true
          ? { relevance_score: r.relevance_score, index: r.index, document: documents[r.index] }
          : { relevance_score: r.relevance_score, index: r.index },
      )
    const total = documents.reduce((sum, d) => sum + mockTokens(body.query) + mockTokens(d), 0)
    return Response.json({ object: 'list', data, model: body.model, usage: { total_tokens: total } })
  })
  return { url: `${server.origin}/v1`, requests: server.requests, stop: server.stop }
}
