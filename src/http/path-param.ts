/**
 * @module The rest of a wildcard route's path (`/v1/models/*`), as the pipeline reads it: percent-decoded. A path that
 * is not valid percent-encoded UTF-8 (`%E0%A4%A`) cannot be decoded; `decodeURIComponent` throws on it, which used to
 * become a 500 before the key was checked. It is now the request's ingress error: a 400 after authentication.
 */
import { type GatewayError, gatewayErrors } from '../errors/gateway-error.ts'

/** The decoded path parameter, or the 400 for one that cannot be decoded. */
export function decodePathParam(raw: string): string | GatewayError {
  try {
    return decodeURIComponent(raw)
  } catch {
    return gatewayErrors.invalidRequest('The request path is not valid percent-encoded UTF-8.', null, 'invalid_path')
  }
}
