/**
 * @module Puts a request's labels on its context before the pipeline runs, so every audit entry has them (also
 * a 401's). Bad labels become an ingress error, raised after authentication like a bad body.
 */
import { gatewayErrors } from '../errors/gateway-error.ts'
import type { RequestContext } from '../pipeline/context.ts'
import type { LabelsConfig } from './config.ts'
import { requestLabels } from './request-labels.ts'

export function applyRequestLabels(ctx: RequestContext, config: LabelsConfig): void {
  const result = requestLabels(ctx.headers, config)
  if (result.ok) ctx.labels = result.labels
  else ctx.ingressError ??= gatewayErrors.invalidRequest(result.message, result.param, 'invalid_labels')
}
