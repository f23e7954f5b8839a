/**
 * @module OpenAI embeddings through Vertex AI's `:predict` for Google's embedding models (`gemini-embedding-001`,
 * `text-embedding-005`, `text-multilingual-embedding-002`): `{instances: [{content}], parameters:
 * {outputDimensionality}}`, answered `{predictions: [{embeddings: {values, statistics: {token_count}}}]}`. The
 * answer is OpenAI's list (base64 as OpenAI encodes it), its usage the token counts Vertex reports (the gateway's
 * count of the input where it reports none). Vertex takes one instance a request for `gemini-embedding-001`: several
 * inputs to it are refused by Vertex, and that refusal is passed on. Claude models embed nothing (400).
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { jsonAnswer, parsedAnswer } from '../../../src/pipeline/json-answer.ts'
import { countedInputTokens, embeddingList } from '../../../src/protocols/embeddings/answer.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import type { UpstreamUrl } from '../../../src/providers/upstream-url.ts'
import { geminiUpstreamError } from '../gemini/adapter.ts'
import { embeddingTextsOrRefusal } from '../gemini/embeddings.ts'

type Json = Record<string, unknown>

interface Prediction {
  values: number[]
  tokens: number | undefined
}

function predictionOf(value: unknown): Prediction | undefined {
  const embeddings = (value as { embeddings?: { values?: unknown; statistics?: { token_count?: unknown } } } | undefined)?.embeddings
  const values = embeddings?.values
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'number')) return undefined
  const tokens = embeddings?.statistics?.token_count
  return { values, tokens: typeof tokens === 'number' ? tokens : undefined }
}

export async function vertexEmbeddings(call: AdapterCall, url: UpstreamUrl, headers: Record<string, string>): Promise<UpstreamResult> {
  const texts = embeddingTextsOrRefusal(call)
  if (texts instanceof GatewayError) return texts
  const parameters: Json = {}
  if (typeof call.body.dimensions === 'number') parameters.outputDimensionality = call.body.dimensions
  const res = await fetchUpstream(call, {
    url,
    headers,
    body: JSON.stringify({ instances: texts.map((content) => ({ content })), parameters }),
    toError: geminiUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  let answer: Json
  try {
    answer = (parsedAnswer(res) ?? (await res.json())) as Json
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  const predictions = (Array.isArray(answer.predictions) ? answer.predictions : []).map(predictionOf)
  if (predictions.length !== texts.length || predictions.some((p) => p === undefined))
    return upstreamFailures.unexpectedShape(call.provider.name, `expected ${texts.length} prediction(s) with embedding values`)
  const reported = predictions as Prediction[]
  const tokens = reported.every((p) => p.tokens !== undefined) ? reported.reduce((sum, p) => sum + p.tokens!, 0) : await countedInputTokens(call.ctx, texts)
  const list = embeddingList(
    call.body,
    call.target.model,
    reported.map((p) => p.values),
    tokens,
  )
  return jsonAnswer(JSON.stringify(list), list, { status: 200, headers: { 'content-type': 'application/json' } })
}
