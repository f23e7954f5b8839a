/**
 * @module One upstream call for one target, shared by every route plugin: picks the adapter, sets the upstream
 * model id in the body, and turns the upstream answer into the client-facing response (header hygiene included).
 */
import type { ResolvedTarget } from './types.ts'
import { GatewayError } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { clientHeadersFrom } from '../pipeline/headers.ts'
import type { AttemptKind } from '../pipeline/snapshots.ts'
import type { PluginDeps } from '../pipeline/types.ts'

export async function callTarget(ctx: RequestContext, target: ResolvedTarget, kind: AttemptKind, deps: PluginDeps): Promise<Response> {
  const registered = deps.providers.get(target.providerName)
  if (!registered?.adapter) {
    throw new GatewayError({
      status: 501,
      type: 'provider_error',
      provider: target.providerName,
      code: 'provider_not_supported',
      message: `Provider '${target.providerName}' (type ${registered?.instance.type ?? 'unknown'}) has no adapter in this gateway version.`,
    })
  }
  const { adapter, instance } = registered
  const call = {
    provider: instance,
    target,
    body: { ...ctx.body, model: target.model },
    ctx,
    attemptKind: kind,
    limits: { ttfbMs: deps.config.upstream.ttfb_timeout_ms, idleMs: deps.config.upstream.idle_timeout_ms, secrets: deps.providers.secrets() },
  }
  let upstream: Response
  if (ctx.endpoint === 'responses') {
    if (!instance.nativeResponses || !adapter.responses) {
      throw new GatewayError({
        status: 400,
        type: 'invalid_request_error',
        provider: target.providerName,
        param: 'model',
        code: 'unsupported_endpoint',
        message: `Provider '${target.providerName}' does not speak the Responses API; use /v1/chat/completions for this model.`,
      })
    }
    upstream = await adapter.responses(call)
  } else {
    upstream = await adapter.chatCompletions(call)
  }
  return new Response(upstream.body, { status: upstream.status, headers: clientHeadersFrom(upstream.headers, ctx.requestId) })
}
