/**
 * @module The shared rerank shape (`/v1/rerank`, src/protocols/rerank/shape.ts) for adapters whose provider speaks a
 * rerank API of its own (Cohere's `/v2/rerank`, Voyage's `/v1/rerank`): the request's documents as the strings those
 * APIs take, and their ranking back as the shared answer, each result's document taken from the request when
 * `return_documents` is true (Cohere v2 returns none; Voyage's are plain strings).
 */

type Json = Record<string, unknown>

/** One ranked document as a provider reports it: its index in the request's documents and its score. */
export interface RankedDocument {
  index: number
  relevance_score: number
}

/** The documents as strings: a string as it is, an object's `text` (the request schema allows nothing else). */
export function rerankDocumentTexts(body: Json): string[] {
  const documents = Array.isArray(body.documents) ? body.documents : []
  return documents.map((d) => (typeof d === 'string' ? d : String((d as { text?: unknown }).text ?? '')))
}

/** A provider's ranking as the shared answer; undefined when a result is not an index of the request's documents. */
export function sharedRerankAnswer(args: { model: string; ranked: readonly unknown[]; documents: readonly string[]; returnDocuments: boolean; usage: Json }): Json | undefined {
  const results: Json[] = []
  for (const item of args.ranked) {
    const { index, relevance_score } = (item ?? {}) as Partial<RankedDocument>
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= args.documents.length || typeof relevance_score !== 'number') return undefined
    results.push(args.returnDocuments ? { index, relevance_score, document: { text: args.documents[index] } } : { index, relevance_score })
  }
  return { model: args.model, results, usage: args.usage }
}
