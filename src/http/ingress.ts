/**
 * @module Turns an HTTP request into a RequestContext: reads the body (only when the key in the headers is good
 * and the body is declared as JSON) within the size limit and the body deadline, parses JSON once, and records ingress problems for the pipeline to
 * raise after authentication.
 */
import { BODY_CAPTURE_LIMIT_BYTES } from '../audit/capture-limit.ts'
import { GatewayError, gatewayErrors } from '../errors/gateway-error.ts'
import type { Logger } from '../log/logger.ts'
import { RequestContext, type EndpointId } from '../pipeline/context.ts'
import type { RequestsEnd } from '../pipeline/context-abort.ts'
import { endpoint as endpointOf } from '../protocols/endpoints.ts'
import type { Authentication } from '../keys/authenticator.ts'
import { readBody, readBodyBytes } from './body-reader.ts'
import { hasBody, unsupportedJsonBody } from './json-content-type.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'
import { MAX_JSON_VALUES } from './json-values.ts'
import { openUpload } from './multipart-upload.ts'
import { StreamedBody } from './streamed-body.ts'

export interface IngressInput {
  request: Request
  endpoint: EndpointId
  /** Read from the connection on first use (RequestContext.clientIp). */
  clientIp: () => string
  log: Logger
  maxBodyBytes: number
  /** Largest multipart upload (`body: 'multipart'` rows), streamed through rather than read. */
  maxUploadBytes: number
  /** Time allowed for the whole body to arrive. */
  bodyDeadlineMs: number
  /**
   * The key in the headers, checked before the body: a request that will be refused (a wrong key) never has its
   * body read, so an unauthenticated caller costs no memory for it. The pipeline's auth step answers the 401.
   */
  authentication: Authentication
  pathParam?: string
  /** Ends the request's work at the gateway's drain deadline (the client going away is the request's own signal). */
  requestsEnd?: RequestsEnd
}

export interface Ingress {
  ctx: RequestContext
  /** The body was not read to its end: the connection must close after the answer (its rest is never read). */
  closeConnection: boolean
  /** An upload streamed during the pipeline: whether its rest was left unread, asked once the answer is made. */
  uploadLeftUnread?: () => boolean
}

export async function buildRequestContext({
  request,
  endpoint,
  clientIp,
  log,
  maxBodyBytes,
  maxUploadBytes,
  bodyDeadlineMs,
  authentication,
  pathParam,
  requestsEnd,
}: IngressInput): Promise<Ingress> {
  const ctx = new RequestContext({
    endpoint,
    method: request.method,
    path: pathOf(request.url),
    headers: request.headers,
    clientIp,
    log,
    clientSignal: request.signal,
    requestsEnd,
    pathParam,
    authentication,
  })
  if (authentication.kind !== 'authenticated') return { ctx, closeConnection: hasBody(request) }
  const query = request.url.indexOf('?')
  ctx.rawQuery = query === -1 ? '' : request.url.slice(query + 1)
  const bodyKind = endpointOf(endpoint).body
  // The pass-through's body is the provider's business, whatever its type: kept as bytes (readRawBody).
  if (bodyKind === 'bytes') return { ctx, closeConnection: !(await readRawBody(ctx, request, maxBodyBytes, bodyDeadlineMs)) }
  if (request.method === 'POST' && bodyKind === 'multipart') return openMultipart(ctx, request, maxUploadBytes, bodyDeadlineMs)
  if (request.method === 'POST' && bodyKind === 'stream') return leaveUnread(ctx, request)
  if (request.method !== 'POST' || bodyKind !== 'json') return { ctx, closeConnection: false }
  // Before the body is read: a POST that is not declared as JSON is refused (json-content-type.ts).
  const notJson = unsupportedJsonBody(request)
  if (notJson) {
    ctx.ingressError = notJson
    return { ctx, closeConnection: hasBody(request) }
  }
  return { ctx, closeConnection: !(await readJsonBody(ctx, request, maxBodyBytes, bodyDeadlineMs)) }
}

/**
 * A multipart upload: its text fields become the body the pipeline checks (`model` included), its files (beyond
 * the read-ahead) stream upstream later (multipart-upload.ts). The fields are small and stored in the audit entry like a JSON body.
 */
async function openMultipart(ctx: RequestContext, request: Request, maxUploadBytes: number, bodyDeadlineMs: number): Promise<Ingress> {
  const upload = await openUpload(request, { maxBytes: maxUploadBytes, deadlineMs: bodyDeadlineMs })
  if (upload instanceof GatewayError) {
    ctx.ingressError = upload
    if (upload.status === 413) ctx.requestBodyTooBig = true
    return { ctx, closeConnection: hasBody(request) }
  }
  ctx.upload = upload
  ctx.originalBody = upload.fields
  ctx.body = { ...upload.fields }
  ctx.requestedModel = upload.fields.model as string
  ctx.stream = upload.fields.stream === 'true'
  return {
    ctx,
    closeConnection: false,
    uploadLeftUnread: () => {
      upload.discard()
      return !upload.finished
    },
  }
}

/** The row's own answer reads the body (a file upload); the connection closes if it leaves some unread. */
function leaveUnread(ctx: RequestContext, request: Request): Ingress {
  const declared = request.headers.get('content-length')
  const body = new StreamedBody(request.body, request.headers.get('content-type'), declared === null ? undefined : Number(declared))
  ctx.streamedBody = body
  return { ctx, closeConnection: false, uploadLeftUnread: () => body.leftUnread() }
}

/** Paths that `new URL(url).pathname` gives back unchanged (no dot segments, escapes or other characters to encode). */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/

/** `new URL(url).pathname` without building a URL when the path is plain (every request to a /v1 route but a few). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return new URL(url).pathname
  const query = url.indexOf('?', start)
  const path = query < 0 ? url.slice(start) : url.slice(start, query)
  return PLAIN_PATH.test(path) ? path : new URL(url).pathname
}

/**
 * Keeps the body's bytes exactly as received (the pass-through forwards them unchanged); a JSON body is
 * also parsed, only to read its `model` and `stream` and for the audit entry. A body that is not JSON is no error:
 * the provider judges its own API's bodies.
 */
async function readRawBody(ctx: RequestContext, request: Request, maxBodyBytes: number, bodyDeadlineMs: number): Promise<boolean> {
  if (request.method === 'GET' || request.method === 'HEAD') return true
  const read = await readBodyBytes(request, { maxBytes: maxBodyBytes, deadlineMs: bodyDeadlineMs })
  if (read.kind === 'too_large') {
    ctx.ingressError = gatewayErrors.bodyTooLarge(maxBodyBytes)
    ctx.requestBodyTooBig = true
    return false
  }
  if (read.kind === 'timeout') {
    ctx.ingressError = gatewayErrors.bodyTimeout(bodyDeadlineMs / 1000)
    return false
  }
  if (read.kind === 'aborted') {
    ctx.ingressError = gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
    return false
  }
  ctx.rawBody = read.bytes
  ctx.requestBodyTooBig = read.size > BODY_CAPTURE_LIMIT_BYTES
  if (!/json/i.test(request.headers.get('content-type') ?? '') || read.size === 0) return true
  const text = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength).toString('utf8')
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
      ctx.originalBodyText = text
      ctx.originalBody = parsed
      ctx.body = parsed as Record<string, unknown>
      ctx.stream = ctx.body.stream === true
    }
  } catch {
    // not JSON after all: forwarded as it is
  }
  return true
}

/** Reads and parses the body into the context; false when it was not read to its end. */
async function readJsonBody(ctx: RequestContext, request: Request, maxBodyBytes: number, bodyDeadlineMs: number): Promise<boolean> {
  const read = await readBody(request, { maxBytes: maxBodyBytes, deadlineMs: bodyDeadlineMs, maxJsonValues: MAX_JSON_VALUES })
  if (read.kind === 'too_large') {
    ctx.ingressError = gatewayErrors.bodyTooLarge(maxBodyBytes)
    ctx.requestBodyTooBig = true
    return false
  }
  // What parsing (and everything after it) costs grows with the number of values: counted before (json-values.ts).
  if (read.kind === 'too_many_values') {
    ctx.ingressError = gatewayErrors.invalidRequest(`Request body holds more than ${MAX_JSON_VALUES} values.`, null, 'json_too_many_values')
    ctx.requestBodyTooBig = true
    return false
  }
  if (read.kind === 'timeout') {
    ctx.ingressError = gatewayErrors.bodyTimeout(bodyDeadlineMs / 1000)
    return false
  }
  if (read.kind === 'aborted') {
    ctx.ingressError = gatewayErrors.invalidRequest('The request body could not be read to its end.', null, 'request_body_incomplete')
    return false
  }
  parseJsonBody(ctx, read.text, read.size)
  return true
}

/** Reads a JSON body text into the context as ingress does for a request (batch lines come this way too). */
export function parseJsonBody(ctx: RequestContext, text: string, size: number): void {
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
  // Before anything recursive walks the body (see json-depth.ts).
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
    ctx.ingressError = gatewayErrors.invalidRequest(`Request body nests deeper than ${MAX_JSON_DEPTH} levels.`, null, 'json_too_deep')
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
