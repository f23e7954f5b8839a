/**
 * @module Anthropic adapter: chat requests are translated to the Messages API and the answers back (JSON and
 * streams), so every ingress (chat, Responses) works with Anthropic models. Errors keep their status (529
 * "overloaded" is reported as 503 so clients retry it) and name the provider.
 */
import { GatewayError } from '../../../src/errors/gateway-error.ts'
import { upstreamError } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance } from '../../../src/providers/types.ts'
import { fetchUpstream } from '../../../src/providers/upstream-fetch.ts'
import { chatToAnthropicRequest } from './request.ts'
import { anthropicToChatCompletion } from './response.ts'
import { anthropicStreamToChat } from './stream.ts'

export const ANTHROPIC_VERSION = '2023-06-01'

function headers(provider: ProviderInstance): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION }
  if (provider.apiKey) h['x-api-key'] = provider.apiKey
  return h
}

async function chatCompletions(call: AdapterCall): Promise<Response> {
  const stream = call.body.stream === true
  const res = await fetchUpstream(call, {
    url: `${call.provider.baseUrl}/messages`,
    headers: headers(call.provider),
    body: JSON.stringify(chatToAnthropicRequest(call.body, call.target.model)),
    toError: (status, body, text, h) =>
      upstreamError({ provider: call.provider.name, status: status === 529 ? 503 : status, body, text, headers: h, secrets: call.limits.secrets }),
  })
  if (stream && res.body && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const includeUsage = (call.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true
    return new Response(anthropicStreamToChat(res.body, includeUsage), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
  }
  let message: Record<string, unknown>
  try {
    message = (await res.json()) as Record<string, unknown>
  } catch {
    throw new GatewayError({ status: 502, type: 'provider_error', provider: call.provider.name, code: 'invalid_upstream_response', message: `Provider '${call.provider.name}' answered with a body that is not JSON.` })
  }
  return Response.json(anthropicToChatCompletion(message))
}

export const anthropicAdapter: ProviderAdapter = {
  id: 'anthropic',
  chatCompletions,
  async listModels(provider, signal) {
    const res = await fetch(`${provider.baseUrl}/models?limit=1000`, { headers: headers(provider), signal })
    if (!res.ok) throw new Error(`GET /models answered HTTP ${res.status}`)
    const body = (await res.json()) as { data?: { id?: string }[] }
    return (body.data ?? []).map((m) => m.id ?? '').filter(Boolean)
  },
}
