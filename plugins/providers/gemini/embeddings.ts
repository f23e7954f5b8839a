/**
 * @module OpenAI embeddings through Gemini: one input is `embedContent`, several are one `batchEmbedContents`;
 * `dimensions` becomes `outputDimensionality`. The answer is OpenAI's list, its vectors encoded as the request asked
 * (base64: float32 little-endian, as OpenAI sends them). Gemini reports no token usage for embeddings, so the
 * answer's usage is the gateway's count of the input, and the usage record is marked estimated. Token-array inputs are refused: Gemini embeds text only.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import type { UpstreamUrl } from '../../../src/providers/upstream-url.ts'
import { jsonAnswer, parsedAnswer } from '../../../src/pipeline/json-answer.ts'
import { countedInputTokens, embeddingList } from '../../../src/protocols/embeddings/answer.ts'
import { embeddingInputs, embeddingTexts } from '../../../src/protocols/embeddings/input.ts'
import { geminiUpstreamError } from './adapter.ts'

type Json = Record<string, unknown>
export type EmbedMethod = 'embedContent' | 'batchEmbedContents'

/** The model as Gemini names a resource (`models/<id>` unless it names its collection, `tunedModels/<id>`). */
export function geminiResourceName(model: string): string {
  return model.includes('/') ? model : `models/${model}`
}

function embedRequest(model: string, text: string, dimensions: unknown): Json {
  const request: Json = { model: geminiResourceName(model), content: { parts: [{ text }] } }
  if (typeof dimensions === 'number') request.outputDimensionality = dimensions
  return request
}

const vectorOf = (embedding: unknown): number[] | undefined => {
  const values = (embedding as { values?: unknown } | undefined)?.values
  return Array.isArray(values) && values.every((v) => typeof v === 'number') ? values : undefined
}

/** The vectors of an `embedContent` / `batchEmbedContents` answer in input order; undefined when it has not `count` of them. */
function vectorsOf(answer: Json, count: number): number[][] | undefined {
  const embeddings = Array.isArray(answer.embeddings) ? answer.embeddings : answer.embedding ? [answer.embedding] : []
  const vectors = embeddings.map(vectorOf)
  return vectors.length === count && vectors.every((v) => v !== undefined) ? (vectors as number[][]) : undefined
}

/** The inputs as texts, or the 400 of a provider that embeds text only (token ids cannot be sent to it). */
export function embeddingTextsOrRefusal(call: AdapterCall): string[] | GatewayError {
  const texts = embeddingTexts(embeddingInputs(call.body))
  if (texts && texts.length > 0) return texts
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    provider: call.provider.name,
    param: 'input',
    code: 'unsupported_input',
    message: `Provider '${call.provider.name}' (type ${call.provider.type}) embeds text only: send input as a string or an array of strings, not token ids.`,
  })
}

/** Embeddings through Gemini's methods at the URLs `url` makes, with `headers`: the Gemini API's (and Vertex AI's Gemini models). */
export async function geminiEmbeddings(call: AdapterCall, url: (method: EmbedMethod) => UpstreamUrl, headers: Record<string, string>): Promise<UpstreamResult> {
  const texts = embeddingTextsOrRefusal(call)
  if (texts instanceof GatewayError) return texts
  const { model } = call.target
  const dimensions = call.body.dimensions
  const single = texts.length === 1
  const { model: _model, ...one } = embedRequest(model, texts[0]!, dimensions)
  const body = single ? one : { requests: texts.map((text) => embedRequest(model, text, dimensions)) }
  const res = await fetchUpstream(call, {
    url: url(single ? 'embedContent' : 'batchEmbedContents'),
    headers,
    body: JSON.stringify(body),
    toError: geminiUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  let answer: Json
  try {
    answer = (parsedAnswer(res) ?? (await res.json())) as Json
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  const vectors = vectorsOf(answer, texts.length)
  if (!vectors) return upstreamFailures.unexpectedShape(call.provider.name, `expected ${texts.length} embedding(s) of numbers`)
  const list = embeddingList(call.body, model, vectors, await countedInputTokens(call.ctx, texts))
  const text = JSON.stringify(list)
  return jsonAnswer(text, list, { status: 200, headers: { 'content-type': 'application/json' } })
}
