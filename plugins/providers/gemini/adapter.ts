/**
 * @module Google Gemini adapter: chat requests are translated to `generateContent` /
 * `streamGenerateContent?alt=sse` and the answers back, so every ingress (chat, Responses, Anthropic Messages)
 * works with Gemini models. Errors keep their status, carry Gemini's status name (`RESOURCE_EXHAUSTED`, …) as
 * `code`, and name the provider; a key Gemini refuses (a 400 with reason `API_KEY_INVALID`) is reported like any
 * refused provider credential, and a `RetryInfo` delay becomes `Retry-After`.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { upstreamError, upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchModelIds } from '../../../src/providers/model-list.ts'
import { fetchUpstream, type UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { chatToGeminiRequest } from './request.ts'
import { blockedPromptError, geminiToChatCompletion } from './response.ts'
import { GeminiStreamTranslator, geminiStreamToChat } from './stream.ts'
import { toolCallMemory } from './tool-call-memory.ts'
import { type EmbedMethod, geminiEmbeddings, geminiResourceName } from './embeddings.ts'
import { googleImageGeneration } from './images.ts'
import { geminiImageEdit } from './image-edits.ts'
import { isEventStream } from '../../../src/pipeline/sse.ts'
import { asksForUsageChunk, replayCompletion } from '../../../src/protocols/chat-wire.ts'

type Json = Record<string, unknown>

function headers(provider: ProviderInstance): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' }
  if (provider.apiKey) h['x-goog-api-key'] = provider.apiKey
  return h
}

/**
 * The model's generate method: `models/<id>` unless the id names its collection (`tunedModels/<id>`; the catalogue
 * admits only Gemini's model collections, src/models/model-id.ts).
 */
function generateUrl(provider: ProviderInstance, model: string, stream: boolean): UpstreamUrl {
  const slash = model.indexOf('/')
  const collection = slash === -1 ? 'models' : model.slice(0, slash)
  const id = model.slice(slash + 1)
  return stream ? upstreamUrl(provider.baseUrl, { alt: 'sse' })`/${collection}/${id}:streamGenerateContent` : upstreamUrl(provider.baseUrl)`/${collection}/${id}:generateContent`
}

/** Reads `{"error":{code,message,status,details}}` (sometimes wrapped in an array) into a GatewayError. */
export function geminiUpstreamError(call: AdapterCall): NonNullable<UpstreamHttpRequest['toError']> {
  return (status, body, text, h) => {
    const root = Array.isArray(body) ? body[0] : body
    const inner = (root as { error?: Json } | undefined)?.error
    if (typeof inner !== 'object' || inner === null) return upstreamError({ provider: call.provider.name, status, body, text, headers: h, secrets: call.limits.secrets })
    const details = (Array.isArray(inner.details) ? inner.details : []) as Json[]
    const keyRefused = details.some((d) => d.reason === 'API_KEY_INVALID')
    const normalised = { error: { message: inner.message, code: typeof inner.status === 'string' ? inner.status : null, param: null } }
    return upstreamError({
      provider: call.provider.name,
      status: keyRefused ? 401 : status,
      body: normalised,
      text,
      headers: withRetryAfter(h, details),
      secrets: call.limits.secrets,
    })
  }
}

/** Google states the wait in a `RetryInfo` detail (`"retryDelay": "7s"`) rather than a header; clients read `Retry-After`. */
function withRetryAfter(h: Headers, details: Json[]): Headers {
  const delay = details.find((d) => typeof d.retryDelay === 'string')?.retryDelay as string | undefined
  const seconds = delay ? Number.parseFloat(delay) : Number.NaN
  if (h.has('retry-after') || !Number.isFinite(seconds)) return h
  const out = new Headers(h)
  out.set('retry-after', String(Math.ceil(seconds)))
  return out
}

/** A page of Gemini's model list: the models that answer generateContent, without the `models/` prefix. */
function generateContentModels(body: unknown): { ids: string[]; next?: string } | undefined {
  const page = body as { models?: { name?: string; supportedGenerationMethods?: string[] }[]; nextPageToken?: string } | undefined
  if (typeof page !== 'object' || page === null || (page.models !== undefined && !Array.isArray(page.models))) return undefined
  const ids: string[] = []
  for (const m of page.models ?? []) {
    const methods = m.supportedGenerationMethods
    if (m.name && (!methods || methods.includes('generateContent'))) ids.push(m.name.replace(/^models\//, ''))
  }
  return { ids, next: page.nextPageToken }
}

/**
 * A chat request through `generateContent` at the URLs `url` makes (`stream` for `streamGenerateContent?alt=sse`),
 * answered in chat wire format: the Gemini API's own and Vertex AI's Gemini models (plugins/providers/vertex) alike.
 */
export async function generateContentChat(call: AdapterCall, url: (stream: boolean) => UpstreamUrl, requestHeaders: Record<string, string>): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const res = await fetchUpstream(call, {
    url: url(stream),
    headers: requestHeaders,
    body: JSON.stringify(chatToGeminiRequest(call.body, call.target.model, toolCallMemory)),
    toError: geminiUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  if (stream && res.body && isEventStream(res)) {
    const includeUsage = asksForUsageChunk(call.body)
    const translator = new GeminiStreamTranslator(includeUsage, call.target.model, toolCallMemory)
    return new Response(geminiStreamToChat(res.body, translator), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  }
  let answer: Json
  try {
    answer = (await res.json()) as Json
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  const blocked = blockedPromptError(answer, call.provider.name)
  if (blocked) return blocked
  const completion = geminiToChatCompletion(answer, call.target.model, toolCallMemory)
  if (!stream) return Response.json(completion)
  // A stream was asked for but the upstream answered JSON: replay the completion as chat chunks.
  const includeUsage = asksForUsageChunk(call.body)
  return new Response(replayCompletion(completion, includeUsage), { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
}

function chatCompletions(call: AdapterCall): Promise<UpstreamResult> {
  return generateContentChat(call, (stream) => generateUrl(call.provider, call.target.model, stream), headers(call.provider))
}

function embeddings(call: AdapterCall): Promise<UpstreamResult> {
  const name = geminiResourceName(call.target.model)
  const slash = name.indexOf('/')
  const url = (method: EmbedMethod) => upstreamUrl(call.provider.baseUrl)`/${name.slice(0, slash)}/${name.slice(slash + 1)}:${method}`
  return geminiEmbeddings(call, url, headers(call.provider))
}

/** The target model's method (`:predict`, `:generateContent`) for the image routes. */
function imageMethodUrl(call: AdapterCall): (method: 'predict' | 'generateContent') => UpstreamUrl {
  const name = geminiResourceName(call.target.model)
  const slash = name.indexOf('/')
  return (method) => upstreamUrl(call.provider.baseUrl)`/${name.slice(0, slash)}/${name.slice(slash + 1)}:${method}`
}

/** Imagen's `:predict`, the Gemini image models' `:generateContent` (./images.ts). */
function imagesGenerations(call: AdapterCall): Promise<UpstreamResult> {
  return googleImageGeneration(call, imageMethodUrl(call), headers(call.provider), geminiUpstreamError(call))
}

/** A Gemini image model's `:generateContent` with the uploaded images inline (./image-edits.ts). */
function imagesEdits(call: AdapterCall): Promise<UpstreamResult> {
  return geminiImageEdit(call, imageMethodUrl(call), headers(call.provider), geminiUpstreamError(call))
}

export const geminiAdapter: ProviderAdapter = {
  id: 'gemini',
  chatCompletions,
  embeddings,
  imagesGenerations,
  imagesEdits,
  chatTranslation: {
    request: (body, model) => chatToGeminiRequest(body, model, toolCallMemory),
    answer: (response, model, providerName) => blockedPromptError(response, providerName) ?? geminiToChatCompletion(response, model, toolCallMemory),
  },
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'x-goog-api-key': provider.apiKey } : {}),
  listModels: (provider, signal) =>
    fetchModelIds(
      {
        provider: provider.name,
        url: (pageToken) => upstreamUrl(provider.baseUrl, { pageSize: '1000', pageToken })`/models`,
        headers: headers(provider),
        read: generateContentModels,
      },
      signal,
    ),
}
