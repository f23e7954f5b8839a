/**
 * @module Anthropic adapter: chat requests are translated to the Messages API and the answers back (JSON and
 * streams), so every ingress (chat, Responses) works with Anthropic models; the Anthropic-format ingress
 * (`/v1/messages`, `/v1/messages/count_tokens`) is forwarded natively. Errors keep their status (529
 * "overloaded" is reported as 503 so clients retry it), carry Anthropic's error type as `code`, and name the
 * provider.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { upstreamError, upstreamFailures } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, UpstreamResult } from '../../../src/providers/types.ts'
import { fetchModelIds } from '../../../src/providers/model-list.ts'
import { fetchUpstream, type UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'
import { type UpstreamUrl, upstreamUrl } from '../../../src/providers/upstream-url.ts'
import { modelListPage } from '../openai-compatible/adapter.ts'
import { chatToAnthropicRequest } from './request.ts'
import { anthropicToChatCompletion } from './response.ts'
import { anthropicStreamToChat } from './stream.ts'
import { isEventStream } from '../../../src/pipeline/sse.ts'
import { asksForUsageChunk } from '../../../src/protocols/chat-wire.ts'

export const ANTHROPIC_VERSION = '2023-06-01'

function headers(provider: ProviderInstance): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION }
  if (provider.apiKey) h['x-api-key'] = provider.apiKey
  return h
}

/**
 * Native calls keep the client's protocol version and beta flags: Claude Code sends `anthropic-beta` for features
 * its request body relies on, and the upstream rejects those fields without the flag.
 */
function nativeHeaders(call: AdapterCall): Record<string, string> {
  const h = headers(call.provider)
  const version = call.ctx.headers.get('anthropic-version')
  const beta = call.ctx.headers.get('anthropic-beta')
  if (version) h['anthropic-version'] = version
  if (beta) h['anthropic-beta'] = beta
  return h
}

/**
 * Reads `{"type":"error","error":{"type","message"}}` into a GatewayError: the Anthropic error type becomes the
 * code, and 529 (overloaded) is reported as 503, a status every client retries.
 */
export function anthropicUpstreamError(call: AdapterCall): NonNullable<UpstreamHttpRequest['toError']> {
  return (status, body, text, h) => {
    const inner = (body as { error?: { type?: unknown; message?: unknown } } | undefined)?.error
    const normalised =
      typeof inner === 'object' && inner !== null ? { error: { message: inner.message, code: typeof inner.type === 'string' ? inner.type : null, param: null } } : body
    return upstreamError({ provider: call.provider.name, status: status === 529 ? 503 : status, body: normalised, text, headers: h, secrets: call.limits.secrets })
  }
}

/** Where a Messages API lives: Anthropic's own, or Claude on a cloud (Vertex AI's rawPredict), which takes the body its own way. */
export interface MessagesUpstream {
  url(stream: boolean): UpstreamUrl
  headers: Record<string, string>
  /** The Messages request as this upstream takes it (Vertex AI: no `model`, its `anthropic_version`). */
  body?(request: Record<string, unknown>): Record<string, unknown>
  /** The model name Anthropic's per-model rules know it by (structured output support). */
  anthropicModel?: string
  toError?: NonNullable<UpstreamHttpRequest['toError']>
}

/** A chat request through a Messages API, answered in chat wire format (JSON or stream). */
export async function messagesChat(call: AdapterCall, upstream: MessagesUpstream): Promise<UpstreamResult> {
  const stream = call.body.stream === true
  const request = chatToAnthropicRequest(call.body, upstream.anthropicModel ?? call.target.model)
  if (request instanceof GatewayError) return request
  const res = await fetchUpstream(call, {
    url: upstream.url(stream),
    headers: upstream.headers,
    body: JSON.stringify(upstream.body ? upstream.body(request) : request),
    toError: upstream.toError ?? anthropicUpstreamError(call),
  })
  if (res instanceof GatewayError) return res
  if (stream && res.body && isEventStream(res)) {
    const includeUsage = asksForUsageChunk(call.body)
    return new Response(anthropicStreamToChat(res.body, includeUsage), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  }
  let message: Record<string, unknown>
  try {
    message = (await res.json()) as Record<string, unknown>
  } catch {
    return upstreamFailures.notJson(call.provider.name)
  }
  return Response.json(anthropicToChatCompletion(message))
}

function chatCompletions(call: AdapterCall): Promise<UpstreamResult> {
  return messagesChat(call, { url: () => upstreamUrl(call.provider.baseUrl)`/messages`, headers: headers(call.provider) })
}

/** The client's own Messages request (model replaced), answered as the upstream answers it: JSON or SSE. */
function native(url: (baseUrl: string) => UpstreamUrl) {
  return (call: AdapterCall) =>
    fetchUpstream(call, { url: url(call.provider.baseUrl), headers: nativeHeaders(call), body: JSON.stringify(call.body), toError: anthropicUpstreamError(call) })
}

export const anthropicAdapter: ProviderAdapter = {
  id: 'anthropic',
  chatCompletions,
  messages: native((baseUrl) => upstreamUrl(baseUrl)`/messages`),
  countMessageTokens: native((baseUrl) => upstreamUrl(baseUrl)`/messages/count_tokens`),
  chatTranslation: { request: chatToAnthropicRequest, answer: (message) => anthropicToChatCompletion(message) },
  credentialHeaders: (provider): Record<string, string> => (provider.apiKey ? { 'x-api-key': provider.apiKey } : {}),
  listModels: (provider, signal) =>
    fetchModelIds({ provider: provider.name, url: () => upstreamUrl(provider.baseUrl, { limit: '1000' })`/models`, headers: headers(provider), read: modelListPage }, signal),
}
