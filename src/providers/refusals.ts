/**
 * @module The 400s an adapter answers before anything is sent, for what its provider or model cannot do of a
 * request that is valid in OpenAI's shape: each names the provider or model and says what to send instead.
 */
import { GatewayError } from '../errors/gateway-error.ts'
import type { AdapterCall } from './types.ts'

/** A field of the request this provider cannot honour (`param`), refused with `code`. */
export function requestRefusal(call: AdapterCall, param: string, message: string, code = 'unsupported_value'): GatewayError {
  return new GatewayError({ status: 400, type: 'invalid_request_error', provider: call.provider.name, param, code, message })
}

/** A model that does not serve this endpoint on its provider: "does not `what`: use `instead`". */
export function modelRefusal(call: AdapterCall, what: string, instead: string): GatewayError {
  return requestRefusal(call, 'model', `Model '${call.target.model}' on provider '${call.provider.name}' does not ${what}: use ${instead}.`, 'unsupported_endpoint')
}
