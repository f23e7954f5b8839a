/**
 * @module A mock Gemini API (`/v1beta`) speaking the real wire format, written from the public API reference and
 * the recorded traffic in the js-genai SDK tests: `generateContent` JSON, `streamGenerateContent?alt=sse` with
 * CRLF framing and no terminator (multi-byte characters split across reads), interim chunks that carry only
 * prompt counts, function calls without ids that end with `STOP` and carry a `thoughtSignature`, errors as
 * `{"error":{code,message,status,details}}` (on a stream: served as `text/event-stream` without `data:`), an
 * error event inside a stream, and blocked prompts. It also checks what Gemini checks: the API key, alternating
 * roles, a `functionResponse` naming the call it answers, and (for `gemini-3*` models) the signature on a
 * replayed function call. Image models as the reference shows them: Imagen's `:predict` (`predictions[]` with
 * `bytesBase64Encoded`; `sampleCount` 1-4; `imagen-filtered` filters every image, `imagen-one-filtered` one) and the Gemini image models'
 * `generateContent` (`inlineData` parts, a text part unless `responseModalities` is `["IMAGE"]`, image tokens in
 * `usageMetadata`; `gemini-image-unsafe` stops with `IMAGE_SAFETY`). The model name picks a behaviour; every
 * request is recorded.
 */
import { type RecordedRequest, serveRecording } from './mock-openai-upstream.ts'
import { AGENT_MODEL, resultText, scriptedTurn } from './scripted-agent.ts'
import { schemaInstance } from './schema-instance.ts'

const encoder = new TextEncoder()

export const GEMINI_TEXT = 'Bonjour 🙂 — 你好'
export const GEMINI_SIGNATURE = 'CiQBVKhc7gVNmockSignature=='
export const GEMINI_USAGE = {
  promptTokenCount: 293,
  cachedContentTokenCount: 200,
  candidatesTokenCount: 20,
  thoughtsTokenCount: 110,
  totalTokenCount: 423,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 293 }],
}

type Json = Record<string, any>
type Part = Json

export interface MockGemini {
  url: string
  requests: RecordedRequest[]
  stop(): void
}

function googleError(status: number, rpcStatus: string, message: string, details: Json[] = [], contentType = 'application/json'): Response {
  return new Response(JSON.stringify({ error: { code: status, message, status: rpcStatus, details } }, null, 2), {
    status,
    headers: { 'content-type': `${contentType}; charset=UTF-8` },
  })
}

/** What Gemini itself would refuse in a request, or undefined. */
function invalidRequest(body: Json, model: string): string | undefined {
  const contents = body?.contents
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified'
  const calls: string[] = []
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i]
    if (c.role !== 'user' && c.role !== 'model') return `Please use a valid role: user, model.`
    if (i > 0 && contents[i - 1].role === c.role) return 'Please ensure that multiturn requests alternate between user and model.'
    for (const [j, part] of (c.parts as Part[]).entries()) {
      if (part.functionCall) {
        calls.push(part.functionCall.name)
        if (model.startsWith('gemini-3') && j === (c.parts as Part[]).findIndex((p) => p.functionCall) && !part.thoughtSignature)
          return `Function call \`${part.functionCall.name}\` in the \`${i}.\` content block is missing a \`thought_signature\`.`
      }
      if (part.functionResponse && !calls.includes(part.functionResponse.name)) return `functionResponse name '${part.functionResponse.name}' does not match any function call.`
    }
  }
  return undefined
}

function candidate(parts: Part[], finishReason?: string): Json {
  const c: Json = { content: { parts, role: 'model' }, index: 0 }
  if (finishReason) c.finishReason = finishReason
  return c
}

function answer(model: string, candidates: Json[], usage: Json = GEMINI_USAGE, extra: Json = {}): Json {
  return { candidates, usageMetadata: usage, modelVersion: model, responseId: 'ctSfaIzLC43Qz7IPzsvdkAg', ...extra }
}

function lastUserParts(body: Json): Part[] {
  const last = body.contents.at(-1)
  return last?.role === 'user' ? last.parts : []
}

/** The parts a model answers with, and its finish reason. */
function reply(model: string, body: Json): { parts: Part[]; finishReason: string } {
  if (model === AGENT_MODEL) return agentReply(body)
  const config = (body.generationConfig ?? {}) as Json
  const schema = config.responseJsonSchema ?? config.responseSchema
  if (schema) return { parts: [{ text: JSON.stringify(schemaInstance(schema)) }], finishReason: 'STOP' }
  if (config.responseMimeType === 'application/json') return { parts: [{ text: '{"answer":"Paris"}' }], finishReason: 'STOP' }
  const userParts = lastUserParts(body)
  const toolResult = userParts.find((p) => p.functionResponse)
  if (toolResult) return { parts: [{ text: `Result: ${JSON.stringify(toolResult.functionResponse.response)}` }], finishReason: 'STOP' }
  if (model.includes('tool')) {
    return {
      parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: GEMINI_SIGNATURE }],
      finishReason: 'STOP',
    }
  }
  if (model.includes('thinking')) return { parts: [{ text: 'The user greets me.', thought: true }, { text: 'Hi!' }], finishReason: 'STOP' }
  if (model.includes('max-tokens')) return { parts: [{ text: 'Cut sh' }], finishReason: 'MAX_TOKENS' }
  const text = userParts.find((p) => typeof p.text === 'string')?.text ?? ''
  return { parts: [{ text: text.startsWith('echo:') ? text.slice(5) : GEMINI_TEXT }], finishReason: 'STOP' }
}

function agentReply(body: Json): { parts: Part[]; finishReason: string } {
  const parts: Part[] = body.contents.flatMap((c: Json) => (c.role === 'user' ? c.parts : []))
  const response = parts.findLast((p) => p.functionResponse)?.functionResponse?.response
  const turn = scriptedTurn({
    texts: parts.filter((p) => typeof p.text === 'string').map((p) => p.text),
    tools: (body.tools ?? []).flatMap((t: Json) => (t.functionDeclarations ?? []).map((f: Json) => f.name)),
    toolResult: response === undefined ? undefined : resultText(response.content ?? response.output ?? response.result ?? response),
  })
  if (turn.kind === 'text') return { parts: [{ text: turn.text }], finishReason: 'STOP' }
  return { parts: [{ functionCall: { name: turn.name, args: JSON.parse(turn.arguments) }, thoughtSignature: GEMINI_SIGNATURE }], finishReason: 'STOP' }
}

/** Stream chunks: text cut into pieces across chunks, the finish reason and full usage on the last one only. */
function streamChunks(model: string, parts: Part[], finishReason: string): Json[] {
  const interimUsage = { promptTokenCount: GEMINI_USAGE.promptTokenCount, totalTokenCount: GEMINI_USAGE.promptTokenCount }
  const chunks: Json[] = []
  for (const part of parts) {
    if (typeof part.text === 'string' && part.text.length > 4) {
      const chars = Array.from(part.text)
      const half = Math.ceil(chars.length / 2)
      chunks.push(answer(model, [candidate([{ ...part, text: chars.slice(0, half).join('') }])], interimUsage))
      chunks.push(answer(model, [candidate([{ ...part, text: chars.slice(half).join('') }])], interimUsage))
    } else chunks.push(answer(model, [candidate([part])], interimUsage))
  }
  const last = chunks.at(-1)!
  last.candidates[0].finishReason = finishReason
  last.usageMetadata = GEMINI_USAGE
  return chunks
}

/** SSE with CRLF line ends, cut every 5 bytes so frames and UTF-8 characters straddle reads. */
function sse(chunks: Json[], opts: { trailer?: string } = {}): Response {
  const text = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('') + (opts.trailer ?? '')
  const bytes = encoder.encode(text)
  let offset = 0
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close()
        controller.enqueue(bytes.slice(offset, offset + 5))
        offset += 5
      },
    }),
    { headers: { 'content-type': 'text/event-stream', 'x-goog-request-id': 'gemini-req-1' } },
  )
}

export function startMockGemini(apiKey = 'gemini-test-key'): MockGemini {
  const server = serveRecording(async (req, url, recorded) => {
    const body = recorded.body
    if (req.headers.get('x-goog-api-key') !== apiKey) {
      return googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ])
    }
    if (req.method === 'GET' && url.pathname === '/v1beta/models') {
      return Response.json({
        models: [
          { name: 'models/gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
          { name: 'models/gemini-3-pro-preview', displayName: 'Gemini 3 Pro', supportedGenerationMethods: ['generateContent'] },
          { name: 'models/text-embedding-004', displayName: 'Embedding', supportedGenerationMethods: ['embedContent'] },
        ],
      })
    }
    const predict = /^\/v1beta\/models\/(imagen-[^:]+):predict$/.exec(url.pathname)
    if (req.method === 'POST' && predict) return imagenAnswer(predict[1]!, body)
    const embed = /^\/v1beta\/models\/([^:]+):(embedContent|batchEmbedContents)$/.exec(url.pathname)
    if (req.method === 'POST' && embed) return embedAnswer(embed[1]!, embed[2] === 'batchEmbedContents', body)
    const route = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname)
    if (req.method !== 'POST' || !route) return googleError(404, 'NOT_FOUND', `Method not found: ${url.pathname}`)
    return generateContentAnswer(route[1]!, route[2] === 'streamGenerateContent', body, url)
  })
  return { url: `${server.origin}/v1beta`, requests: server.requests, stop: server.stop }
}

/** The Gemini answer to a `generateContent` / `streamGenerateContent` request (the Gemini API's and Vertex AI's alike). */
export function generateContentAnswer(model: string, stream: boolean, body: Json, url: URL): Response {
  if (stream && url.searchParams.get('alt') !== 'sse') return googleError(400, 'INVALID_ARGUMENT', 'the mock speaks only alt=sse')

  if (model.startsWith('missing')) {
    // Recorded: the error body is served as an event stream, without a data: prefix.
    return googleError(
      404,
      'NOT_FOUND',
      `models/${model} is not found for API version v1beta, or is not supported for generateContent.`,
      [],
      stream ? 'text/event-stream' : 'application/json',
    )
  }
  if (model === 'rate-limited') {
    return googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' },
    ])
  }
  if (model === 'unavailable') return googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.')
  const invalid = invalidRequest(body, model)
  if (invalid) return googleError(400, 'INVALID_ARGUMENT', invalid)
  if (model.includes('-image') && !stream) return geminiImageAnswer(model, body)
  if (model === 'blocked')
    return Response.json({
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
      modelVersion: model,
      responseId: 'blocked-1',
    })

  const { parts, finishReason } = reply(model, body)
  if (!stream)
    return Response.json(
      answer(model, [
        { ...candidate(parts, finishReason), ...(finishReason === 'STOP' && parts.some((p) => p.functionCall) ? { finishMessage: 'Model generated function call(s).' } : {}) },
      ]),
    )
  const chunks = streamChunks(model, parts, finishReason)
  if (model === 'stream-error') {
    return sse(chunks.slice(0, 1), { trailer: `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } })}\r\n\r\n` })
  }
  if (model === 'cut') return sse(chunks.slice(0, 1))
  return sse(chunks)
}

export const GEMINI_EMBEDDING_DIMENSIONS = 6

/** The mock's vector of one text: doubles (as Gemini's JSON carries them) derived from the text, `dimensions` long. */
export function geminiEmbeddingValues(text: string, dimensions = GEMINI_EMBEDDING_DIMENSIONS): number[] {
  const seed = Array.from(text).reduce((h, c) => (h * 31 + c.codePointAt(0)!) % 1_000_003, 11)
  return Array.from({ length: dimensions }, (_, i) => Math.cos(seed + i) / 7)
}

/**
 * `embedContent` (`{content, outputDimensionality}` -> `{embedding: {values}}`) and `batchEmbedContents`
 * (`{requests: [{model, content, …}]}` -> `{embeddings: [{values}]}`), checked as Gemini checks them: each batched
 * request names the model of the URL, at most 100 requests, text parts only.
 */
function embedAnswer(model: string, batch: boolean, body: Json): Response {
  if (model === 'rate-limited') {
    return googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' },
    ])
  }
  const requests: Json[] = batch ? (Array.isArray(body?.requests) ? body.requests : []) : [body]
  if (requests.length === 0) return googleError(400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: requests is not specified')
  if (requests.length > 100) return googleError(400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch')
  const vectors: number[][] = []
  for (const [i, request] of requests.entries()) {
    if (batch && request.model !== `models/${model}`)
      return googleError(400, 'INVALID_ARGUMENT', `Model names should be the same within a batch request. Found models/${model} and ${request.model} at requests[${i}].`)
    const parts = request.content?.parts
    if (!Array.isArray(parts) || parts.length === 0 || parts.some((p: Json) => typeof p.text !== 'string'))
      return googleError(400, 'INVALID_ARGUMENT', '* EmbedContentRequest.content: contains no text parts')
    vectors.push(geminiEmbeddingValues(parts.map((p: Json) => p.text).join(''), request.outputDimensionality ?? GEMINI_EMBEDDING_DIMENSIONS))
  }
  // A broken upstream: one embedding short.
  if (model === 'embed-one-short') vectors.pop()
  return Response.json(batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] } })
}

/** The bytes of every mock Google image: a PNG signature and a marker, so a client can check what it decoded. */
export const GOOGLE_IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 7, 7])
const GOOGLE_IMAGE_B64 = Buffer.from(GOOGLE_IMAGE).toString('base64')
/** What a Gemini image model reports for one image: the prompt's tokens in, 1,290 image tokens out. */
export const GEMINI_IMAGE_USAGE = {
  promptTokenCount: 9,
  candidatesTokenCount: 1290,
  totalTokenCount: 1299,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }],
  candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1290 }],
}

/** Imagen's `:predict` (the Gemini API's and Vertex AI's alike): `sampleCount` images (1 to 4) of `instances[0].prompt`. */
export function imagenAnswer(model: string, body: Json): Response {
  const prompt = body?.instances?.[0]?.prompt
  if (typeof prompt !== 'string' || prompt.length === 0) return googleError(400, 'INVALID_ARGUMENT', 'Prompt is required.')
  const count = body?.parameters?.sampleCount ?? 4
  if (!Number.isInteger(count) || count < 1 || count > 4) return googleError(400, 'INVALID_ARGUMENT', `sampleCount must be between 1 and 4, got ${count}.`)
  const ratio = body?.parameters?.aspectRatio
  if (ratio !== undefined && !['1:1', '3:4', '4:3', '9:16', '16:9'].includes(ratio)) return googleError(400, 'INVALID_ARGUMENT', `Unsupported aspect ratio: ${ratio}.`)
  // Every image filtered by the safety checks: Imagen answers without predictions.
  if (model === 'imagen-filtered') return Response.json({})
  // One image filtered: Imagen leaves it out of the predictions.
  const made = model === 'imagen-one-filtered' ? count - 1 : count
  return Response.json({ predictions: Array.from({ length: made }, () => ({ mimeType: 'image/png', bytesBase64Encoded: GOOGLE_IMAGE_B64 })) })
}

/** A Gemini image model's `generateContent`: the image as an `inlineData` part, with a text part unless only images were asked for. */
function geminiImageAnswer(model: string, body: Json): Response {
  if (model === 'gemini-image-unsafe')
    return Response.json({ candidates: [{ finishReason: 'IMAGE_SAFETY', index: 0 }], usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, modelVersion: model })
  const inline = (body.contents as Json[]).flatMap((c) => c.parts as Part[]).filter((p) => p.inlineData)
  const badImage = inline.find((p) => !/^image\/(png|jpeg|webp|heic|heif)$/.test(p.inlineData.mimeType) || typeof p.inlineData.data !== 'string')
  if (badImage) return googleError(400, 'INVALID_ARGUMENT', `Unsupported MIME type: ${badImage.inlineData.mimeType}`)
  const modalities: string[] = body?.generationConfig?.responseModalities ?? ['TEXT', 'IMAGE']
  const parts: Part[] = [
    ...(modalities.includes('TEXT') ? [{ text: 'Here is the picture you asked for.' }] : []),
    { inlineData: { mimeType: 'image/png', data: GOOGLE_IMAGE_B64 } },
  ]
  return Response.json(answer(model, [candidate(parts, 'STOP')], GEMINI_IMAGE_USAGE))
}
