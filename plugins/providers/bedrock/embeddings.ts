/**
 * @module OpenAI embeddings through Bedrock's InvokeModel for its embedding model families:
 * - Amazon Titan Text Embeddings (`amazon.titan-embed-text-…`): one text a call, `{inputText, dimensions}` answered
 *   `{embedding, inputTextTokenCount}`; several inputs are one call each, in order (each an attempt in the entry).
 * - Cohere Embed (`cohere.embed-…`): `{texts, input_type}` (the client's `input_type` if it sent one, else
 *   `search_document`; `dimensions` as `output_dimension`) answered `{embeddings: [[…]]}` (or `{embeddings: {float}}`),
 *   the tokens in the `X-Amzn-Bedrock-Input-Token-Count` header.
 * Answers are OpenAI's list (base64 as OpenAI encodes it); the usage is Bedrock's token counts, the gateway's count of
 * the input where it reports none. Other models embed nothing here (400 unsupported_endpoint).
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { jsonAnswer, parsedAnswer } from '../../../src/pipeline/json-answer.ts'
import { countedInputTokens, embeddingList } from '../../../src/protocols/embeddings/answer.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import { modelRefusal } from '../../../src/providers/refusals.ts'
import type { AdapterCall, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { embeddingTextsOrRefusal } from '../gemini/embeddings.ts'
import { bedrockUpstreamError } from './errors.ts'

type Json = Record<string, unknown>

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }

/** Model ids, bare or behind a cross-region profile (`us.cohere.embed-v4:0`). */
const isTitanEmbed = (model: string) => /(^|\.)amazon\.titan-embed-text/.test(model)
const isCohereEmbed = (model: string) => /(^|\.)cohere\.embed-/.test(model)

/** Whether Bedrock embeds with `model` (the families this module speaks). */
function isBedrockEmbeddingModel(model: string): boolean {
  return isTitanEmbed(model) || isCohereEmbed(model)
}

const isVector = (value: unknown): value is number[] => Array.isArray(value) && value.every((v) => typeof v === 'number')

interface Embedded {
  vectors: number[][]
  /** Bedrock's count, when it reported one. */
  tokens: number | undefined
}

/** One InvokeModel call: its parsed answer and the input token count Bedrock reports in a header. */
async function invoke(call: AdapterCall, body: Json): Promise<{ answer: Json; headerTokens: number | undefined } | GatewayError> {
  const res = await fetchUpstream(call, {
    url: upstreamUrl(call.provider.baseUrl)`/model/${call.target.model}/invoke`,
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
    toError: bedrockUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  try {
    const answer = (parsedAnswer(res) ?? (await res.json())) as Json
    const header = Number(res.headers.get('x-amzn-bedrock-input-token-count') ?? Number.NaN)
    return { answer, headerTokens: Number.isFinite(header) ? header : undefined }
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
}

async function titan(call: AdapterCall, texts: string[]): Promise<Embedded | GatewayError> {
  const vectors: number[][] = []
  let tokens: number | undefined = 0
  for (const inputText of texts) {
    const body: Json = { inputText }
    if (typeof call.body.dimensions === 'number') body.dimensions = call.body.dimensions
    const answered = await invoke(call, body)
    if (answered instanceof GatewayError) return answered
    const { embedding, inputTextTokenCount } = answered.answer
    if (!isVector(embedding)) return upstreamFailures.unexpectedShape(call.provider.name, 'expected an embedding of numbers')
    vectors.push(embedding)
    tokens = typeof inputTextTokenCount === 'number' && tokens !== undefined ? tokens + inputTextTokenCount : undefined
  }
  return { vectors, tokens }
}

async function cohere(call: AdapterCall, texts: string[]): Promise<Embedded | GatewayError> {
  const body: Json = { texts, input_type: typeof call.body.input_type === 'string' ? call.body.input_type : 'search_document' }
  if (typeof call.body.dimensions === 'number') body.output_dimension = call.body.dimensions
  const answered = await invoke(call, body)
  if (answered instanceof GatewayError) return answered
  const embeddings = answered.answer.embeddings
  const vectors = Array.isArray(embeddings) ? embeddings : (embeddings as { float?: unknown } | undefined)?.float
  if (!Array.isArray(vectors) || vectors.length !== texts.length || !vectors.every(isVector))
    return upstreamFailures.unexpectedShape(call.provider.name, `expected ${texts.length} float embedding(s)`)
  return { vectors, tokens: answered.headerTokens }
}

export async function bedrockEmbeddings(call: AdapterCall): Promise<UpstreamResult> {
  const { model } = call.target
  if (!isBedrockEmbeddingModel(model)) {
    return modelRefusal(call, 'embed', 'an Amazon Titan Text Embeddings or Cohere Embed model')
  }
  const texts = embeddingTextsOrRefusal(call)
  if (texts instanceof GatewayError) return texts
  const embedded = isTitanEmbed(model) ? await titan(call, texts) : await cohere(call, texts)
  if (embedded instanceof GatewayError) return embedded
  const tokens = embedded.tokens ?? (await countedInputTokens(call.ctx, texts))
  const list = embeddingList(call.body, model, embedded.vectors, tokens)
  return jsonAnswer(JSON.stringify(list), list, { status: 200, headers: { 'content-type': 'application/json' } })
}
