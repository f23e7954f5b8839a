/**
 * @module Gateway errors in Anthropic's shape, `{"type":"error","error":{"type","message",…}}`: the Anthropic SDKs
 * pick the exception class from the HTTP status and read `error.type` and `error.message`. The GatewayError's other
 * fields (`code`, `param`, `provider`, `status_code`) ride along inside `error`; its `type` is replaced by the
 * Anthropic type for the status (docs.claude.com/en/api/errors), because clients branch on that vocabulary.
 */
import type { GatewayError } from '../../errors/gateway-error.ts'

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
}

export function anthropicErrorType(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
}

export function anthropicErrorBody(error: GatewayError): { type: 'error'; error: Record<string, unknown> } {
  return { type: 'error', error: { ...error.toBody(), type: anthropicErrorType(error.status) } }
}
