/**
 * @module Chat for a provider the gateway uses for rerank only (Cohere, Voyage AI): the 400 `unsupported_endpoint`
 * that every API over chat (chat, Responses, Messages) then answers, naming what the provider does serve.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { AdapterCall, UpstreamResult } from './types.ts'

export function rerankOnlyChat(call: AdapterCall): Promise<UpstreamResult> {
  return Promise.resolve(
    new GatewayError({
      status: 400,
      type: 'invalid_request_error',
      provider: call.provider.name,
      code: 'unsupported_endpoint',
      message: `Provider '${call.provider.name}' (type ${call.provider.type}) serves /v1/rerank only.`,
    }),
  )
}
