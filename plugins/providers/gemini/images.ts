/**
 * @module OpenAI image generation (`/v1/images/generations`) through Google's image models, as the Gemini API's
 * reference describes them: Imagen models (`imagen-*`) through `:predict` (`instances: [{prompt}]`, `parameters:
 * {sampleCount, aspectRatio}`, images as `predictions[].bytesBase64Encoded`), the Gemini image models through
 * `generateContent` with `responseModalities: ["IMAGE"]` (images as the answer's `inlineData` parts, tokens in
 * `usageMetadata`). Either way the answer is OpenAI's `{created, data: [{b64_json}], usage?}`; `stream: true` is
 * answered with one `image_generation.completed` event per image (Google streams no partial images). Google
 * answers no URLs: `response_format: "url"` is refused, as is more than one image from a Gemini image model (one
 * candidate per call). The size becomes the nearest aspect ratio Google offers.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { namedEventFrame } from '../../../src/pipeline/sse.ts'
import { usageFromGemini } from '../../../src/pipeline/usage.ts'
import { upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import { requestRefusal } from '../../../src/providers/refusals.ts'
import type { AdapterCall, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchUpstream, type UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import type { UpstreamUrl } from '../../../src/providers/upstream-url.ts'
import { blockedPromptError } from './response.ts'

type Json = Record<string, unknown>

/** The aspect ratios Imagen and the Gemini image models share, as width / height. */
const ASPECT_RATIOS: readonly [string, number][] = [
  ['1:1', 1],
  ['3:4', 3 / 4],
  ['4:3', 4 / 3],
  ['9:16', 9 / 16],
  ['16:9', 16 / 9],
]

/** `<width>x<height>` as the nearest aspect ratio Google offers; undefined for `auto`, none, or anything else. */
export function aspectRatioOf(size: unknown): string | undefined {
  const match = typeof size === 'string' ? /^(\d{1,5})x(\d{1,5})$/.exec(size) : null
  if (!match || Number(match[2]) === 0) return undefined
  const ratio = Number(match[1]) / Number(match[2])
  let best = ASPECT_RATIOS[0]!
  for (const candidate of ASPECT_RATIOS) if (Math.abs(Math.log(candidate[1] / ratio)) < Math.abs(Math.log(best[1] / ratio))) best = candidate
  return best[0]
}

export const isImagenModel = (model: string): boolean => /^(models\/)?imagen-/.test(model)

function imageCount(n: unknown): number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1
}

/** What Google cannot do as OpenAI's request asks, refused before anything is sent. */
function unsupported(call: AdapterCall, imagen: boolean): GatewayError | undefined {
  return imageOptionsRefusal(call, !imagen && imageCount(call.body.n) > 1)
}

/** Google answers images as data only, and a Gemini image model one per request (`manyAsked`: n above 1). */
export function imageOptionsRefusal(call: AdapterCall, manyAsked: boolean): GatewayError | undefined {
  const { body, provider, target } = call
  if (body.response_format === 'url')
    return requestRefusal(call, 'response_format', `Provider '${provider.name}' (type ${provider.type}) answers images as data only: ask for response_format 'b64_json'.`)
  if (manyAsked) return requestRefusal(call, 'n', `Model '${target.model}' on provider '${provider.name}' makes one image per request: send n = 1 (or one request per image).`)
  return undefined
}

function imagenRequest(body: Json): Json {
  const aspectRatio = aspectRatioOf(body.size)
  return { instances: [{ prompt: body.prompt }], parameters: { sampleCount: imageCount(body.n), ...(aspectRatio ? { aspectRatio } : {}) } }
}

/** A Gemini image model's request: the prompt, then any images it works from (`inlineData` parts: an edit's). */
export function geminiImageRequest(body: Json, images: readonly Json[] = []): Json {
  const aspectRatio = aspectRatioOf(body.size)
  return {
    contents: [{ role: 'user', parts: [{ text: body.prompt }, ...images] }],
    generationConfig: { responseModalities: ['IMAGE'], ...(aspectRatio ? { imageConfig: { aspectRatio } } : {}) },
  }
}

/** `predictions[].bytesBase64Encoded` (a prediction filtered by Google's safety checks has none and is left out). */
function imagenImages(answer: Json): string[] {
  const predictions = Array.isArray(answer.predictions) ? (answer.predictions as Json[]) : []
  return predictions.map((p) => p?.bytesBase64Encoded).filter((b): b is string => typeof b === 'string' && b.length > 0)
}

/** The first candidate's image parts (`inlineData`, or `inline_data` as some proxies write it); text parts are left out. */
function geminiImages(answer: Json): string[] {
  const candidate = (Array.isArray(answer.candidates) ? answer.candidates[0] : undefined) as Json | undefined
  const parts = ((candidate?.content as Json | undefined)?.parts ?? []) as Json[]
  return parts.map((p) => ((p?.inlineData ?? p?.inline_data) as Json | undefined)?.data).filter((d): d is string => typeof d === 'string' && d.length > 0)
}

/** Google's safety finish reasons for an image it would not make. */
const SAFETY_REASONS = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_PROHIBITED_CONTENT'])

/** An answer without an image: Imagen filtered every one; a Gemini model stopped for safety, or answered otherwise. */
function noImage(call: AdapterCall, answer: Json, imagen: boolean): GatewayError {
  const candidate = (Array.isArray(answer.candidates) ? answer.candidates[0] : undefined) as Json | undefined
  const reason = imagen ? 'every image filtered' : candidate?.finishReason
  if (typeof reason !== 'string' || (!imagen && !SAFETY_REASONS.has(reason)))
    return upstreamFailures.unexpectedShape(call.provider.name, 'expected at least one image in the answer')
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    provider: call.provider.name,
    code: 'content_policy_violation',
    message: `Provider '${call.provider.name}' made no image: its safety checks stopped it (${reason}).`,
  })
}

/** OpenAI's image usage (the GPT image models' shape) from Gemini's `usageMetadata`; undefined for Imagen, priced per image. */
function openaiImageUsage(answer: Json): Json | undefined {
  const tokens = usageFromGemini(answer.usageMetadata)
  if (!tokens) return undefined
  return { input_tokens: tokens.prompt_tokens, output_tokens: tokens.completion_tokens, total_tokens: tokens.total_tokens }
}

/** The events of OpenAI's image streams: `image_generation.*` for generations, `image_edit.*` for edits. */
export type ImageEventKind = 'image_generation' | 'image_edit'

/** One `<kind>.completed` event per image, the usage on the last, as OpenAI's image stream ends. */
function completedEvents(kind: ImageEventKind, images: string[], created: number, usage: Json | undefined): ReadableStream<Uint8Array> {
  const frames = images.map((b64, i) => {
    const last = i === images.length - 1
    return namedEventFrame(`${kind}.completed`, { type: `${kind}.completed`, b64_json: b64, created_at: created, ...(last && usage ? { usage } : {}) })
  })
  return new ReadableStream({
    start(controller) {
      for (const frame of frames) controller.enqueue(frame)
      controller.close()
    },
  })
}

/** Image generation through Google's model at `url(method)` with `headers` (the Gemini API's own). */
export async function googleImageGeneration(
  call: AdapterCall,
  url: (method: 'predict' | 'generateContent') => UpstreamUrl,
  headers: Record<string, string>,
  toError: UpstreamHttpRequest['toError'],
): Promise<UpstreamResult> {
  const imagen = isImagenModel(call.target.model)
  const refused = unsupported(call, imagen)
  if (refused) return refused
  const request = { url: url(imagen ? 'predict' : 'generateContent'), headers, body: JSON.stringify(imagen ? imagenRequest(call.body) : geminiImageRequest(call.body)), toError }
  return answerWithImages(call, request, imagen, call.body.stream === true ? 'image_generation' : undefined)
}

/**
 * Sends `request` to Google and answers OpenAI's images response, or its event stream of `streamAs` events; the
 * answer of an Imagen model (`imagen`) or of a Gemini image model.
 */
export async function answerWithImages(call: AdapterCall, request: UpstreamHttpRequest, imagen: boolean, streamAs: ImageEventKind | undefined): Promise<UpstreamResult> {
  const res = await fetchUpstream(call, request)
  if (res instanceof GatewayError) return res
  let answer: Json
  try {
    answer = (await res.json()) as Json
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  const blocked = imagen ? undefined : blockedPromptError(answer, call.provider.name)
  if (blocked) return blocked
  const images = imagen ? imagenImages(answer) : geminiImages(answer)
  if (images.length === 0) return noImage(call, answer, imagen)
  const created = Math.floor(Date.now() / 1000)
  const usage = imagen ? undefined : openaiImageUsage(answer)
  if (streamAs) return new Response(completedEvents(streamAs, images, created, usage), { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  return Response.json({ created, data: images.map((b64_json) => ({ b64_json })), ...(usage ? { usage } : {}) })
}
