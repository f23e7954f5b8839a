/**
 * @module Google Vertex AI. Models live under `projects/{project}/locations/{location}/publishers/{publisher}/models/{id}`:
 * Gemini models (publisher `google`) through `:generateContent` and `:streamGenerateContent?alt=sse`, translated
 * exactly as for the Gemini API (plugins/providers/gemini); Claude models (`claude-…`, publisher `anthropic`)
 * through `:rawPredict` and `:streamRawPredict`, which take a Messages request without `model` and with
 * `anthropic_version: vertex-2023-10-16`: chat is translated as for Anthropic (plugins/providers/anthropic), and
 * `/v1/messages` is forwarded natively, its answer (thinking signatures included) unchanged. Requests carry a bearer
 * token from Application Default Credentials (src/credentials/google-adc.ts, applied by fetchUpstream). Errors
 * come in Google's shape (quota, permissions) or Anthropic's (the model's own). Embeddings go to Google's embedding
 * models' `:predict` (./embeddings.ts); images to Imagen's `:predict` and the Gemini image models' `:generateContent`
 * as through the Gemini API (plugins/providers/gemini/images.ts, image-edits.ts). The model list is the configured
 * one (VERTEX_MODELS); listing fetches the first token, so broken credentials show at start-up.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { modelRefusal } from '../../../src/providers/refusals.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { authorize } from '../../../src/providers/upstream-auth.ts'
import { fetchUpstream, type UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { anthropicUpstreamError, messagesChat } from '../anthropic/adapter.ts'
import { generateContentChat, geminiUpstreamError } from '../gemini/adapter.ts'
import { geminiImageEdit } from '../gemini/image-edits.ts'
import { googleImageGeneration } from '../gemini/images.ts'
import { vertexEmbeddings } from './embeddings.ts'

/** The Messages API version Vertex AI takes in the body. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16'

const JSON_HEADERS = { 'content-type': 'application/json' }

export function isClaude(model: string): boolean {
  return model.startsWith('claude-')
}

/** `{base}/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}:{method}` (query `alt=sse` for streams). */
export function vertexModelUrl(provider: ProviderInstance, model: string, method: string, sse = false): UpstreamUrl {
  const publisher = isClaude(model) ? 'anthropic' : 'google'
  const under = upstreamUrl(provider.baseUrl, sse ? { alt: 'sse' } : undefined)
  return under`/projects/${provider.project ?? ''}/locations/${provider.location ?? ''}/publishers/${publisher}/models/${model}:${method}`
}

/** Google's error shape for the platform's refusals, Anthropic's for the model's own. */
function vertexUpstreamError(call: AdapterCall): NonNullable<UpstreamHttpRequest['toError']> {
  const google = geminiUpstreamError(call)
  const anthropic = anthropicUpstreamError(call)
  return (status, body, text, headers) => {
    const anthropicShaped = (body as { type?: unknown } | undefined)?.type === 'error'
    return (anthropicShaped ? anthropic : google)(status, body, text, headers)
  }
}

/** The Messages body as rawPredict takes it: no `model`, Vertex's version. */
function rawPredictBody(request: Record<string, unknown>): Record<string, unknown> {
  const { model: _model, ...rest } = request
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }
}

function chatCompletions(call: AdapterCall): Promise<UpstreamResult> {
  const { provider, target } = call
  if (!isClaude(target.model)) {
    return generateContentChat(
      call,
      (stream) => (stream ? vertexModelUrl(provider, target.model, 'streamGenerateContent', true) : vertexModelUrl(provider, target.model, 'generateContent')),
      JSON_HEADERS,
    )
  }
  return messagesChat(call, {
    url: (stream) => vertexModelUrl(provider, target.model, stream ? 'streamRawPredict' : 'rawPredict'),
    headers: JSON_HEADERS,
    body: rawPredictBody,
    // `claude-sonnet-4@20250514` is `claude-sonnet-4-20250514` to Anthropic's per-model rules.
    anthropicModel: target.model.replace('@', '-'),
    toError: vertexUpstreamError(call),
  })
}

/** `/v1/messages` for Claude: the client's request (model and stream in the URL) and its beta flags, answered as is. */
function messages(call: AdapterCall): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const headers: Record<string, string> = { ...JSON_HEADERS }
  const beta = call.ctx.headers.get('anthropic-beta')
  if (beta) headers['anthropic-beta'] = beta
  return fetchUpstream(call, {
    url: vertexModelUrl(call.provider, call.target.model, stream ? 'streamRawPredict' : 'rawPredict'),
    headers,
    body: JSON.stringify(rawPredictBody(call.body)),
    toError: vertexUpstreamError(call),
  })
}

/** Google's embedding models through `:predict`; a Claude model embeds nothing. */
function embeddings(call: AdapterCall): Promise<UpstreamResult> {
  const { provider, target } = call
  if (isClaude(target.model)) return Promise.resolve(modelRefusal(call, 'embed', "one of Google's embedding models (gemini-embedding-001, text-embedding-005)"))
  return vertexEmbeddings(call, vertexModelUrl(provider, target.model, 'predict'), JSON_HEADERS)
}

const IMAGE_MODELS = "one of Google's image models (imagen-4.0-generate-001, gemini-2.5-flash-image)"

function imagesGenerations(call: AdapterCall): Promise<UpstreamResult> {
  const { provider, target } = call
  if (isClaude(target.model)) return Promise.resolve(modelRefusal(call, 'make images', IMAGE_MODELS))
  return googleImageGeneration(call, (method) => vertexModelUrl(provider, target.model, method), JSON_HEADERS, vertexUpstreamError(call))
}

function imagesEdits(call: AdapterCall): Promise<UpstreamResult> {
  const { provider, target } = call
  if (isClaude(target.model)) return Promise.resolve(modelRefusal(call, 'edit images', 'a Gemini image model (gemini-2.5-flash-image)'))
  return geminiImageEdit(call, (method) => vertexModelUrl(provider, target.model, method), JSON_HEADERS, vertexUpstreamError(call))
}

async function listModels(provider: ProviderInstance): Promise<string[] | GatewayError> {
  if (provider.auth) {
    const authorized = await authorize(provider.auth, { method: 'GET', url: provider.baseUrl, headers: {} })
    if (authorized instanceof GatewayError) return authorized
  }
  return [...provider.staticModels]
}

export const vertexAdapter: ProviderAdapter = {
  id: 'vertex',
  chatCompletions,
  messages,
  embeddings,
  imagesGenerations,
  imagesEdits,
  speaksNatively: (api, _provider, model) => api === 'messages' && isClaude(model),
  listModels,
}
