/**
 * @module Rerank (`/v1/rerank`), in the shape Cohere, Jina and Voyage share: `query`, `documents` (strings, or
 * objects with `text`), `top_n`, `return_documents`; the answer `{model, results: [{index, relevance_score,
 * document?}], usage}`. Served by providers that offer it natively (Jina, vLLM: `{base}/rerank`). The query and the
 * documents are counted; the usage the provider reports (`usage.total_tokens`, what Jina and Voyage bill) is the
 * input's, and `usage.search_units` (what Cohere bills: a query with up to 100 documents) is priced per unit.
 * Cohere and Voyage are translated by their adapters (src/protocols/rerank/answer.ts).
 */
import type { TokenUsage } from '../../pipeline/snapshots.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import type { ApiShape } from '../api-shape.ts'

type Json = Record<string, unknown>

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/** The texts a rerank request sends a model: the query and every document (a string, or an object's `text`). */
export function rerankTexts(body: Json): string[] {
  const text = (v: unknown): string => (typeof v === 'string' ? v : typeof (v as { text?: unknown })?.text === 'string' ? (v as { text: string }).text : '')
  const documents = Array.isArray(body.documents) ? body.documents : []
  return [text(body.query), ...documents.map(text)]
}

/** Rerank usage: every token is input (`total_tokens`, or `prompt_tokens` where an upstream names it so); search units when billed so. */
function rerankUsage(reported: unknown): TokenUsage | undefined {
  if (typeof reported !== 'object' || reported === null) return undefined
  const u = reported as Json
  const prompt = num(u.prompt_tokens ?? u.input_tokens) || num(u.total_tokens)
  const tokens: TokenUsage = { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated: false }
  const searchUnits = num(u.search_units)
  return searchUnits > 0 ? { ...tokens, unit: 'search_unit', units: searchUnits, unit_variant: '' } : tokens
}

export const rerankApi: ApiShape = {
  id: 'rerank',
  upstream: { native: (adapter) => adapter.rerank, overChat: null, fallback: null },
  streamCodec: null,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  // The query and the documents are what a model reads; the answer holds scores (and the documents sent, when asked).
  guardedTexts: { request: ['query', 'documents'], response: [] },
  tools: null,
  promptTokens: (body) => countTextsTokens(rerankTexts(body)),
  parameters: null,
  cache: null,
  usage: { units: ['search_unit'], streamUsageOnRequest: false, read: rerankUsage, countOutputTokens: async () => 0, requestedUnits: null },
}
