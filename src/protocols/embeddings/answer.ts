/**
 * @module An embeddings answer in OpenAI's list shape, made from the vectors of a provider that answers in its own
 * shape (Gemini, Vertex AI, Bedrock). `encoding_format: base64` is answered as OpenAI answers it: each vector's
 * float32 values, little-endian, in base64 (what the OpenAI SDKs decode, and ask for by default).
 */
import type { RequestContext } from '../../pipeline/context.ts'
import { countTextsTokens } from '../../tokens/count.ts'
import { markUsageCounted } from '../../usage/gateway-counted.ts'

type Json = Record<string, unknown>

/** The inputs' tokens as the gateway counts them, for a provider that reports none; the request's usage is then marked estimated. */
export function countedInputTokens(ctx: RequestContext, texts: readonly string[]): Promise<number> {
  markUsageCounted(ctx)
  return countTextsTokens(texts)
}

/** The float32 little-endian bytes of `values` in base64, as OpenAI encodes an embedding. */
export function float32Base64(values: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4))
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true)
  return Buffer.from(view.buffer).toString('base64')
}

/** The values of a base64 embedding (the inverse of {@link float32Base64}). */
export function float32FromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true))
}

/** OpenAI's `{"object":"list","data":[…],"model","usage"}` for `vectors` in input order, encoded as the request asked. */
export function embeddingList(request: Json, model: string, vectors: readonly (readonly number[])[], promptTokens: number): Json {
  const base64 = request.encoding_format === 'base64'
  return {
    object: 'list',
    data: vectors.map((values, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(values) : values })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  }
}
