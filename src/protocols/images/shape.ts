/**
 * @module Image generation (`/v1/images/generations`): OpenAI's API, served by providers that speak it natively.
 * The prompt is text a model reads (guardrails scan it); the answer's images are not text. Priced per image by
 * size and quality (`per_unit` of the model's price, e.g. DALL·E) and by tokens when the upstream reports them
 * (the GPT image models): the request's images are the units, its usage the tokens.
 */
import { usageFromOpenAI } from '../../pipeline/usage.ts'
import { countTextTokens } from '../../tokens/count.ts'
import { imageVariant, type UnitUsage } from '../../usage/units.ts'
import type { ApiShape } from '../api-shape.ts'
import { imagesStreamCodec } from './stream-codec.ts'

type Json = Record<string, unknown>

/** The images a request asks for: `n` (default 1) of its size and quality. */
export function requestedImages(request: Json): UnitUsage {
  const n = typeof request.n === 'number' && Number.isInteger(request.n) && request.n > 0 ? request.n : 1
  return { unit: 'image', units: n, unit_variant: imageVariant(request.size, request.quality) }
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
    // DALL·E answers carry no usage: the images asked for are the whole of it, known exactly.
    read: (reported, request) => ({ ...(usageFromOpenAI(reported) ?? { ...NO_TOKENS, estimated: false }), ...requestedImages(request) }),
    countOutputTokens: async () => 0,
    requestedUnits: requestedImages,
  },
}
