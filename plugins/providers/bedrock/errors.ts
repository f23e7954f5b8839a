/**
 * @module Bedrock's error answers (`{"message": …}` with the error's name in the `x-amzn-ErrorType` header or the
 * body's `__type`) as GatewayErrors: the name becomes the code (`ValidationException`, `ThrottlingException`, …),
 * the status is kept, except that a model's own failure (424 ModelErrorException) is the provider's 502 and a
 * model that timed out (408) a 504; 403 (a refused signature, a model the account may not use) is reported as the
 * gateway's credentials being refused.
 */
import { upstreamError } from '../../../src/providers/upstream-errors.ts'
import type { AdapterCall } from '../../../src/providers/types.ts'
import type { UpstreamHttpRequest } from '../../../src/providers/upstream-fetch.ts'

export function bedrockUpstreamError(call: AdapterCall): NonNullable<UpstreamHttpRequest['toError']> {
  return (status, body, text, headers) => {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
    const name = (headers.get('x-amzn-errortype') ?? (typeof b.__type === 'string' ? b.__type : '')).split(':')[0]!.split('#').at(-1) || null
    const message = typeof b.message === 'string' ? b.message : typeof b.Message === 'string' ? b.Message : text
    const reported = status === 424 ? 502 : status
    return upstreamError({ provider: call.provider.name, status: reported, body: { error: { message, code: name, param: null } }, text, headers, secrets: call.limits.secrets })
  }
}
