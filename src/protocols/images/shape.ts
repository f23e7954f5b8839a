/**
 * @module Image generation (`/v1/images/generations`, a JSON body) and image edits (`/v1/images/edits`, a multipart
 * upload of the images and an optional mask, streamed through: src/http/multipart-upload.ts): OpenAI's API, served
 * by providers that speak it natively. The prompt is text a model reads (guardrails scan it); the images are not
 * text. Priced per image by size and quality (`per_unit` of the model's price, e.g. DALL·E) and by tokens when the
 * upstream reports them (the GPT image models): the request's images are the units, its usage the tokens.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextTokens } from '../../tokens/count.ts'
import { imageVariant, type UnitUsage } from '../../usage/units.ts'
import type { ApiShape } from '../api-shape.ts'
import { imagesStreamCodec } from './stream-codec.ts'

type Json = Record<string, unknown>

/** `n` of a JSON body (a number) or of a form (its digits); 1 when absent or not a positive whole number. */
function imageCount(n: unknown): number {
  const count = typeof n === 'string' && /^\d{1,3}$/.test(n) ? Number(n) : n
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 1
}

/** The images a request asks for: `n` (default 1) of its size and quality. */
export function requestedImages(request: Json): UnitUsage {
  return { unit: 'image', units: imageCount(request.n), unit_variant: imageVariant(request.size, request.quality) }
}

/**
 * The images of a JSON answer (`data`), which a provider may make fewer of than asked (Imagen leaves out the ones
 * its checks filtered); undefined without an answer (a stream's fold), where the request's count stands.
 */
function answeredImages(answer: Json | string | undefined): Partial<UnitUsage> {
  const data = typeof answer === 'object' ? answer.data : undefined
  return Array.isArray(data) && data.length > 0 ? { units: data.length } : {}
}

const NO_TOKENS = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }

export const imagesApi: ApiShape = {
  id: 'images',
  upstream: { native: (adapter) => adapter.imagesGenerations, overChat: null, fallback: null },
  streamCodec: imagesStreamCodec,
  errorBody: null,
  genAiOperation: null,
  systemPrompt: null,
  toolResults: null,
  guardedTexts: { request: ['prompt'], response: [] },
  tools: null,
  promptTokens: (body) => countTextTokens(typeof body.prompt === 'string' ? body.prompt : ''),
  parameters: null,
  cache: null,
  usage: {
    units: ['image'],
    streamUsageOnRequest: false,
    // DALL·E answers carry no usage: the images asked for, or answered when fewer came, are the whole of it.
    read: (reported, request, answer) => ({ ...(usageFromOpenAI(reported) ?? { ...NO_TOKENS, estimated: false }), ...requestedImages(request), ...answeredImages(answer) }),
    countOutputTokens: async () => 0,
    requestedUnits: requestedImages,
  },
}

/** Image edits: the same answers, usage and stream (`image_edit.*` events), from an upload. */
export const imageEditsApi: ApiShape = {
  ...imagesApi,
  id: 'image_edits',
  upstream: { native: (adapter) => adapter.imagesEdits, overChat: null, fallback: null },
}
