/**
 * @module The governed pass-through's upstream call: the client's method, path, query and body bytes go to the
 * provider unchanged but for the credential, which is replaced by the provider's (its API key header, a SigV4
 * signature, a bearer token); the answer comes back unchanged whatever its status, its body streamed through as it
 * arrives. The client's own credentials and the hop-by-hop, gateway and network headers never reach the provider.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { AdapterCall, ProviderAdapter, UpstreamResult } from './types.ts'
import { fetchUpstream } from './upstream-fetch.ts'

/** Never forwarded upstream: credentials (the client's gateway key, a client's own signature), hop-by-hop and network headers. */
const DROPPED_REQUEST_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'x-amz-date',
  'x-amz-security-token',
  'x-amz-content-sha256',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'accept-encoding',
  'forwarded',
  'x-real-ip',
])
const DROPPED_REQUEST_PREFIXES = ['x-gateway-', 'x-forwarded-']

/** Never passed back: hop-by-hop headers, cookies, and the encoding and length of a body fetch has already decoded. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-encoding',
  'content-length',
  'set-cookie',
  'set-cookie2',
])

export async function passthroughCall(call: AdapterCall, adapter: ProviderAdapter): Promise<UpstreamResult> {
  const { ctx } = call
  const route = ctx.passthrough
  if (!route || route.providerName !== call.target.providerName) {
    return new GatewayError({
      status: 502,
      type: 'provider_error',
      provider: call.target.providerName,
      code: 'passthrough_target_mismatch',
      message: `A pass-through request goes to the provider its path names ('${route?.providerName ?? ''}'), not to '${call.target.providerName}'.`,
    })
  }
  const headers: Record<string, string> = {}
  ctx.headers.forEach((value, name) => {
    if (!DROPPED_REQUEST_HEADERS.has(name) && !DROPPED_REQUEST_PREFIXES.some((p) => name.startsWith(p))) headers[name] = value
  })
  Object.assign(headers, adapter.credentialHeaders?.(call.provider))
  const answer = await fetchUpstream(call, { url: route.url, method: ctx.method, headers, body: ctx.rawBody, verbatim: true })
  if (answer instanceof GatewayError) return answer
  const out = new Headers()
  answer.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) out.set(name, value)
  })
  const upstreamId = out.get('x-request-id')
  if (upstreamId) out.set('x-upstream-request-id', upstreamId)
  out.set('x-request-id', ctx.requestId)
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: out })
}
