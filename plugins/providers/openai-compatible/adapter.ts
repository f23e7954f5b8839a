/**
 * @module Adapter for OpenAI and every OpenAI-compatible upstream: the canonical body is already their format,
 * so requests and answers (JSON and SSE bytes) pass through untouched apart from the model id.
 */
import type { AdapterCall, ProviderAdapter, ProviderInstance, ResponsesLifecycle, UpstreamResult } from '../../../src/providers/types.ts'
import { GatewayError, gatewayErrors } from '../../../src/errors/gateway-error.ts'
import { isPlainTranscript } from '../../../src/protocols/audio/transcript-formats.ts'
import { fetchModelIds } from '../../../src/providers/model-list.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../src/providers/upstream-url.ts'

export function openaiHeaders(provider: ProviderInstance, stream: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  }
  if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`
  return headers
}

function post(call: AdapterCall, url: UpstreamUrl): Promise<UpstreamResult> {
  return fetchUpstream(call, {
    url,
    headers: openaiHeaders(call.provider, call.body.stream === true),
    body: JSON.stringify(call.body),
  })
}

/** A request whose successful answer is audio (or an event stream when the body asks for one), streamed through. */
function postForBytes(call: AdapterCall, url: UpstreamUrl): Promise<UpstreamResult> {
  const headers = { ...openaiHeaders(call.provider, false), accept: call.body.stream_format === 'sse' ? 'text/event-stream' : '*/*' }
  return fetchUpstream(call, { url, headers, body: JSON.stringify(call.body), binaryAnswer: true })
}

/** A multipart upload (the client's form, model replaced) streamed to the provider; the upload's own failure (413, 408, 400) wins over the call's. */
async function postUpload(call: AdapterCall, url: UpstreamUrl): Promise<UpstreamResult> {
  const upload = call.ctx.upload
  if (!upload) return gatewayErrors.invalidRequest('This endpoint takes a multipart/form-data upload.', null, 'multipart_required')
  // Sent by fetch, which is done with each chunk once it asks for the next: freed then, not when the collector runs.
  const form = upload.forUpstream(call.body, { freeSpentChunks: true })
  if (form instanceof GatewayError) return form
  const headers = openaiHeaders(call.provider, call.body.stream === true || call.body.stream === 'true')
  headers['content-type'] = form.contentType
  const answer = await fetchUpstream(call, { url, headers, body: form.body, textAnswer: isPlainTranscript(call.body) })
  if (upload.failure) return upload.failure
  if (answer instanceof GatewayError) upload.discard()
  return answer
}

/** An OpenAI-style model list page (`{"data": [{"id"}]}`); undefined without a data array. Gemini's compatible endpoint names models `models/<id>`; selectors use the bare id. */
export function modelListPage(body: unknown): { ids: string[] } | undefined {
  const data = (body as { data?: unknown })?.data
  if (!Array.isArray(data)) return undefined
  return { ids: data.map((m) => (typeof m?.id === 'string' ? m.id.replace(/^models\//, '') : '')).filter((id: string) => id.length > 0) }
}

/** A stored response's route: no body; a resumed stream (`stream=true`) is an event stream. */
function ask(call: AdapterCall, method: 'GET' | 'DELETE' | 'POST', url: UpstreamUrl, stream = false): Promise<UpstreamResult> {
  return fetchUpstream(call, { url, method, headers: openaiHeaders(call.provider, stream) })
}

/** OpenAI's routes for stored responses (`/responses/{id}`, `…/cancel`, `…/input_items`) and `/responses/input_tokens`. */
const responsesLifecycle: ResponsesLifecycle = {
  retrieve: (call, id, query) => ask(call, 'GET', upstreamUrl(call.provider.baseUrl, query)`/responses/${id}`, query.stream === 'true'),
  delete: (call, id) => ask(call, 'DELETE', upstreamUrl(call.provider.baseUrl)`/responses/${id}`),
  cancel: (call, id) => ask(call, 'POST', upstreamUrl(call.provider.baseUrl)`/responses/${id}/cancel`),
  inputItems: (call, id, query) => ask(call, 'GET', upstreamUrl(call.provider.baseUrl, query)`/responses/${id}/input_items`),
  inputTokens: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/responses/input_tokens`),
}

export const openaiCompatibleAdapter: ProviderAdapter = {
  id: 'openai-compatible',
  chatCompletions: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/chat/completions`),
  responses: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/responses`),
  imagesGenerations: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/images/generations`),
  imagesEdits: (call) => postUpload(call, upstreamUrl(call.provider.baseUrl)`/images/edits`),
  embeddings: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/embeddings`),
  completions: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/completions`),
  audioTranscriptions: (call) => postUpload(call, upstreamUrl(call.provider.baseUrl)`/audio/transcriptions`),
  audioTranslations: (call) => postUpload(call, upstreamUrl(call.provider.baseUrl)`/audio/translations`),
  responsesLifecycle,
  rerank: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/rerank`),
  moderations: (call) => post(call, upstreamUrl(call.provider.baseUrl)`/moderations`),
  audioSpeech: (call) => postForBytes(call, upstreamUrl(call.provider.baseUrl)`/audio/speech`),
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
  listModels: (provider, signal) =>
    fetchModelIds({ provider: provider.name, url: () => upstreamUrl(provider.baseUrl)`/models`, headers: openaiHeaders(provider, false), read: modelListPage }, signal),
}
