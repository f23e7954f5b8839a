/**
 * @module One upstream call for one target, shared by every route plugin: picks the adapter, speaks the
 * upstream's native API where it matches the client's (Responses on OpenAI-family upstreams, Messages and
 * token counting on Anthropic), otherwise goes
 * through the canonical chat shape with the ingress protocol translating both ways, and turns the answer into
 * the client-facing response (header hygiene included). An upstream's failure comes back as a GatewayError, not a
 * throw, so route plugins read it like any other answer.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { clientHeadersFrom, keepClientHeaders } from '../pipeline/headers.ts'
import type { AttemptKind } from '../pipeline/snapshots.ts'
import type { PluginDeps } from '../pipeline/types.ts'
import { countTokensResponse } from '../protocols/anthropic-messages/count-tokens.ts'
import { endpoint } from '../protocols/endpoints.ts'
import type { IngressProtocol } from '../protocols/types.ts'
import type { AdapterCall, ProviderAdapter, ProviderInstance, ResolvedTarget, UpstreamResult } from './types.ts'
import { isEventStream } from '../pipeline/sse.ts'
import { answerText, jsonAnswer, parsedAnswer } from '../pipeline/json-answer.ts'
import { bodyForAttempt } from '../pipeline/target-adaptation.ts'
import { passthroughCall } from './passthrough-call.ts'

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
  if (endpoint(ctx.endpoint).verbatim) return passthroughCall(call, adapter)
  if (ctx.endpoint === 'messages.count_tokens') {
    return adapter.countMessageTokens ? toClient(ctx, await adapter.countMessageTokens(call)) : await countTokensResponse(body)
  }
  const native = nativeCall(ctx, instance, adapter, target.model)
  if (native) return toClient(ctx, await native(call))

  const protocol: IngressProtocol | undefined = endpoint(ctx.endpoint).protocol
  if (!protocol) return toClient(ctx, await adapter.chatCompletions(call))

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

/** The adapter's own implementation of the client's API, when the upstream speaks it natively. */
function nativeCall(ctx: RequestContext, provider: ProviderInstance, adapter: ProviderAdapter, model: string): ((call: AdapterCall) => Promise<UpstreamResult>) | undefined {
  if (ctx.endpoint === 'responses' && provider.nativeResponses && adapter.responses && (adapter.speaksNatively?.('responses', provider, model) ?? true)) return adapter.responses
  if (ctx.endpoint === 'messages' && adapter.messages && (adapter.speaksNatively?.('messages', provider, model) ?? true)) return adapter.messages
  return undefined
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
