/**
 * @module Turns an HTTP request into a RequestContext: reads the body within the size limit, parses JSON once,
 * and records ingress problems for the pipeline to raise after authentication.
 */
import { gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import { RequestContext, type EndpointId } from '../pipeline/context.ts'
import { endpoint as endpointOf } from '../protocols/endpoints.ts'

/** Audit capture limit for bodies (service description: 1 MB). */
export const BODY_CAPTURE_LIMIT_BYTES = 1024 * 1024

export interface IngressInput {
  request: Request
  endpoint: EndpointId
  clientIp: string
  log: Logger
  maxBodyBytes: number
  pathParam?: string
}

export async function buildRequestContext({ request, endpoint, clientIp, log, maxBodyBytes, pathParam }: IngressInput): Promise<RequestContext> {
  const url = new URL(request.url)
  const ctx = new RequestContext({
    endpoint,
    method: request.method,
    path: url.pathname,
    headers: request.headers,
    clientIp,
    log,
    clientSignal: request.signal,
    pathParam,
  })
  if (request.method === 'POST' && endpointOf(endpoint).body === 'json') await readJsonBody(ctx, request, maxBodyBytes)
  return ctx
}

async function readJsonBody(ctx: RequestContext, request: Request, maxBodyBytes: number): Promise<void> {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > maxBodyBytes) {
    ctx.ingressError = gatewayErrors.bodyTooLarge(maxBodyBytes)
    ctx.requestBodyTooBig = true
    return
  }
  const text = await request.text()
  const size = Buffer.byteLength(text)
  if (size > maxBodyBytes) {
    ctx.ingressError = gatewayErrors.bodyTooLarge(maxBodyBytes)
    ctx.requestBodyTooBig = true
    return
  }
  ctx.originalBodyText = text
  ctx.requestBodyTooBig = size > BODY_CAPTURE_LIMIT_BYTES
  if (!text.trim()) {
    ctx.ingressError = gatewayErrors.invalidRequest('Request body is empty; expected a JSON object.', null, 'invalid_json')
    return
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    ctx.ingressError = gatewayErrors.invalidJson((error as Error).message)
    return
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    ctx.ingressError = gatewayErrors.invalidRequest('Request body must be a JSON object.', null, 'invalid_json')
    return
  }
  ctx.originalBody = parsed
  ctx.body = parsed as Record<string, unknown>
  if (typeof ctx.body.model === 'string') ctx.requestedModel = ctx.body.model
  ctx.stream = ctx.body.stream === true
}
