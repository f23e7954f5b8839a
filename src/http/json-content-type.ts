/**
 * @module Which bodies a JSON endpoint accepts: `Content-Type: application/json`, with or without parameters
 * (`; charset=utf-8`), in any case. A web page can make a browser POST `text/plain`, a form encoding, or a body
 * without any Content-Type to any address without asking first (no CORS preflight), but never `application/json`.
 * So a body of another type is either a mistake (curl -d sends application/x-www-form-urlencoded) or a cross-site
 * request, and is refused with 415 before it is read. A request without a body needs no Content-Type.
 */
import { type GatewayError, gatewayErrors } from '../errors/gateway-error.ts'

export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false
  const semicolon = value.indexOf(';')
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase() === 'application/json'
}

/** Whether the request has a body (from its headers: `request.body` would make a stream just to tell). */
export function hasBody(request: Request): boolean {
  const declared = request.headers.get('content-length')
  return declared !== null ? declared !== '0' : request.headers.has('transfer-encoding')
}

/** The 415 for a request whose body is not declared as JSON; undefined when it is, or when there is no body. */
export function unsupportedJsonBody(request: Request): GatewayError | undefined {
  const contentType = request.headers.get('content-type')
  if (isJsonContentType(contentType) || (contentType === null && !hasBody(request))) return undefined
  return gatewayErrors.unsupportedMediaType(contentType)
}
