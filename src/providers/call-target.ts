/**
 * @module One upstream call for one target, shared by every route plugin: picks the adapter and serves the
 * endpoint's API as its shape says (`upstream`, src/protocols/api-shape.ts): the provider's native method where it
 * speaks the API (Responses on OpenAI-family upstreams, Messages and token counting on Anthropic, chat everywhere),
 * else over chat with the API's translation both ways, else the gateway's own answer; and turns the answer into
 * the client-facing response (header hygiene included). An upstream's failure comes back as a GatewayError, not a
 * throw, so route plugins read it like any other answer.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { clientHeadersFrom, keepClientHeaders } from '../pipeline/headers.ts'
import type { AttemptKind } from '../pipeline/snapshots.ts'
import type { PluginDeps } from '../pipeline/types.ts'
import type { AdapterMethod, ApiShape, UpstreamRoute } from '../protocols/api-shape.ts'
import { endpoint } from '../protocols/endpoints.ts'
import type { IngressProtocol } from '../protocols/types.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, ResolvedTarget, UpstreamResult } from './types.ts'
import { isEventStream } from '../pipeline/sse.ts'
import { answerText, jsonAnswer, parsedAnswer } from '../pipeline/json-answer.ts'
import { bodyForAttempt } from '../pipeline/target-adaptation.ts'

export async function callTarget(ctx: RequestContext, target: ResolvedTarget, kind: AttemptKind, deps: PluginDeps): Promise<UpstreamResult> {
  const registered = deps.providers.get(target.providerName)
  if (!registered?.adapter) {
    return new GatewayError({
      status: 501,
      type: 'provider_error',
      provider: target.providerName,
      code: 'provider_not_supported',
      message: `Provider '${target.providerName}' (type ${registered?.instance.type ?? 'unknown'}) has no adapter in this gateway version.`,
    })
  }
  const { adapter, instance } = registered
  const body = bodyForAttempt(ctx, target)
  const call: AdapterCall = {
    provider: instance,
    target,
    body: { ...body, model: target.model },
    ctx,
    attemptKind: kind,
    limits: {
      ttfbMs: deps.config.upstream.ttfb_timeout_ms,
      idleMs: deps.config.upstream.idle_timeout_ms,
      maxResponseBytes: deps.config.upstream.max_response_bytes,
      secrets: deps.providers.secrets(),
    },
  }
  const row = endpoint(ctx.endpoint)
  const route = servingRoute(row.api, adapter, instance, target.model)
  if (route instanceof GatewayError) return route
  // A verbatim row's answer keeps the upstream's headers as they are (the pass-through makes its own).
  if (route.kind === 'native') return row.verbatim ? route.method(call) : toClient(ctx, await route.method(call))
  if (route.kind === 'fallback') return route.answer(body, ctx)

  const protocol = route.protocol
  const chatBody = await protocol.toChatRequest(body, ctx)
  if (chatBody instanceof GatewayError) return chatBody
  const upstream = await adapter.chatCompletions({ ...call, body: { ...chatBody, model: target.model } })
  if (upstream instanceof GatewayError) return upstream
  const headers = clientHeadersFrom(upstream.headers, ctx.requestId)
  for (const [name, value] of Object.entries(protocol.responseHeaders?.(ctx) ?? {})) headers.set(name, value)
  if (isEventStream(upstream) && upstream.body) {
    headers.set('content-type', 'text/event-stream; charset=utf-8')
    return new Response(protocol.fromChatStream(upstream.body, ctx), { status: upstream.status, headers })
  }
  const completion = (parsedAnswer(upstream) ?? (await upstream.json())) as Record<string, unknown>
  headers.set('content-type', 'application/json')
  const answer = await protocol.fromChatResponse(completion, ctx)
  return jsonAnswer(JSON.stringify(answer), answer, { status: upstream.status, headers })
}

/** How a provider serves an API (the shape's `upstream`, in its order of preference). */
export type ServingRoute =
  | { kind: 'native'; method: AdapterMethod }
  | { kind: 'over_chat'; protocol: IngressProtocol }
  | { kind: 'fallback'; answer: NonNullable<UpstreamRoute['fallback']> }

/**
 * The provider's own method (for `model`: some providers speak an API for some models only), else the translation
 * over chat, else the gateway's answer; a 400 when it has none.
 */
export function servingRoute(api: ApiShape, adapter: ProviderAdapter, provider: ProviderInstance, model: string): ServingRoute | GatewayError {
  const upstream = api.upstream
  const method = upstream?.native(adapter, provider, model)
  if (method) return { kind: 'native', method }
  if (upstream?.overChat) return { kind: 'over_chat', protocol: upstream.overChat }
  if (upstream?.fallback) return { kind: 'fallback', answer: upstream.fallback }
  return new GatewayError({
    status: 400,
    type: 'invalid_request_error',
    provider: provider.name,
    code: 'unsupported_endpoint',
    message: `Provider '${provider.name}' (type ${provider.type}) does not serve the ${api.id} API.`,
  })
}

function toClient(ctx: RequestContext, upstream: UpstreamResult): UpstreamResult {
  if (upstream instanceof GatewayError) return upstream
  // A marked JSON answer was made for this request alone (json-answer.ts): it goes on as it is, its headers made the
  // client's in place. Another Response is passed on by its body, under the client's headers.
  if (answerText(upstream) !== undefined) {
    keepClientHeaders(upstream.headers, ctx.requestId)
    return upstream
  }
  return new Response(upstream.body, { status: upstream.status, headers: clientHeadersFrom(upstream.headers, ctx.requestId) })
}
