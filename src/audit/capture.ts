/**
 * @module Turns a finished request (its RequestContext and Outcome) into one AuditLogEntry. Runs inside
 * `onComplete`, i.e. before a non-streamed answer is handed to the client, so it only copies references and
 * small fields: serialising and writing happen later in the audit writer.
 */
import { presentedKey } from '../keys/presented-key.ts'
import { BODY_CAPTURE_LIMIT_BYTES } from './capture-limit.ts'
import { keyDigest, MAX_PRESENTED_KEY_LENGTH } from '../keys/key-secret.ts'
import { summaryFromTokens, usageSummaryOf } from '../usage/record.ts'
import type { RequestContext } from '../pipeline/context.ts'
import { redactHeaders } from '../pipeline/headers.ts'
import type { TokenUsage } from '../pipeline/snapshots.ts'
import type { Outcome } from '../pipeline/types.ts'
import type { AuditLogEntry, LogData, RequestUsageSummary } from './entry.ts'
import type { BodyTexts } from './record.ts'
import { detectSessionId } from './session.ts'

export interface CapturedEntry {
  entry: AuditLogEntry
  /** The texts the stored bodies were parsed from, so encoding the entry need not serialise them again. */
  bodyTexts: BodyTexts
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
// max_tokens is an integer in the entry's schema; a fractional or unsafe value a client sent stays visible in the request body.
const safeInt = (v: unknown): number | undefined => (Number.isSafeInteger(v) ? (v as number) : undefined)
const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)

/** `knownSecrets`: credentials the gateway holds (master key, provider keys), redacted wherever a logged header carries one. */
export function captureRequest(ctx: RequestContext, outcome: Outcome, knownSecrets: readonly string[] = []): CapturedEntry {
  const error = outcome.error ?? ctx.error
  const body = asObject(ctx.originalBody)
  const target = ctx.target
  const data: LogData = {}
  const bodyTexts: BodyTexts = {}

  const keyHash = apiKeyHash(ctx)
  if (keyHash) data.api_key_hash = keyHash
  const userAgent = ctx.headers.get('user-agent')
  if (userAgent) data.user_agent = userAgent
  const temperature = num(body?.temperature)
  if (temperature !== undefined) data.temperature = temperature
  const maxTokens = safeInt(body?.max_tokens) ?? safeInt(body?.max_completion_tokens) ?? safeInt(body?.max_output_tokens)
  if (maxTokens !== undefined) data.max_tokens = maxTokens
  data.labels = ctx.labels

  if (error) {
    data.error_code = error.code ?? ''
    // The client only learns "invalid key"; the audit entry keeps the precise reason.
    data.error_message = ctx.authFailureReason ? `${error.message} (${ctx.authFailureReason})` : error.message
    data.error_provider = error.provider
  } else if (outcome.clientAborted) {
    data.error_code = 'client_closed_request'
    data.error_message = 'The client closed the connection before the response ended.'
    data.error_provider = ''
  }

  if (ctx.capture.headers) {
    data.request_headers = redactHeaders(ctx.headers, knownSecrets)
    data.response_headers = redactHeaders(outcome.responseHeaders, knownSecrets)
  }
  if (ctx.capture.bodies) captureBodies(ctx, outcome, data, bodyTexts)

  if (ctx.attempts.length > 0) data.attempts = ctx.attempts.slice()
  if (ctx.failover) data.failover = ctx.failover
  if (ctx.revisions.length > 0) data.request_revisions = ctx.revisions.slice()
  data.workflow_features = { ...ctx.features }
  if (ctx.traceId) data.trace_id = ctx.traceId
  if (ctx.batchLine) data.batch = { id: ctx.batchLine.batchId, custom_id: ctx.batchLine.customId }

  const entry: AuditLogEntry = {
    id: ctx.id,
    timestamp: ctx.startedAt.toISOString(),
    duration_ns: Math.round(outcome.durationNs),
    request_id: ctx.requestId,
    requested_model: ctx.requestedModel ?? '',
    resolved_model: target?.selector ?? '',
    provider: target?.providerType ?? '',
    provider_name: target?.providerName ?? '',
    method: ctx.method,
    path: ctx.path,
    status_code: outcome.status,
    stream: ctx.stream,
    error_type: error?.type ?? '',
    session_id: detectSessionId(ctx.headers, ctx.originalBody) ?? '',
    user_path: ctx.userPath ?? '/',
    principal_id: ctx.principal?.id ?? '',
    auth_key_id: ctx.principal?.keyId ?? '',
    auth_method: ctx.principal?.method ?? 'none',
    client_ip: ctx.clientIp,
    cache_type: ctx.cacheType,
    alias_used: ctx.aliasUsed,
    workflow_version_id: ctx.workflowVersionId,
    data,
  }
  if (outcome.usageRecord) entry.usage = usageSummaryOf(outcome.usageRecord)
  else if (ctx.features.usage && outcome.usage) entry.usage = usageSummary(outcome.usage, ctx)
  return { entry, bodyTexts }
}

/**
 * Bodies within the 1 MB capture limit are stored (parsed JSON, else the text); larger ones are not stored at
 * all and the matching `..._too_big_to_handle` flag says so. A body parsed from JSON text keeps that text too.
 */
function captureBodies(ctx: RequestContext, outcome: Outcome, data: LogData, texts: BodyTexts): void {
  if (ctx.requestBodyTooBig) data.request_body_too_big_to_handle = true
  else if (ctx.originalBody !== undefined) {
    data.request_body = ctx.originalBody
    // A body not parsed from JSON text (a multipart form's fields) has none to keep.
    if (ctx.originalBodyText) texts.request = ctx.originalBodyText
  } else if (ctx.originalBodyText) data.request_body = ctx.originalBodyText
  if (ctx.upload) data.request_parts = ctx.upload.parts
  else if (ctx.receivedParts) data.request_parts = ctx.receivedParts

  if (outcome.responseBinary) data.response_binary = outcome.responseBinary
  const response = outcome.responseBody ?? outcome.responseText
  if (response === undefined) return
  // bytesOut is exact for a plain answer and an upper bound for a folded stream (frames carry each delta plus
  // an envelope); only a large stream pays for measuring its folded form.
  let size = outcome.bytesOut
  if (size > BODY_CAPTURE_LIMIT_BYTES && ctx.stream) size = Buffer.byteLength(typeof response === 'string' ? response : JSON.stringify(response))
  if (size > BODY_CAPTURE_LIMIT_BYTES) data.response_body_too_big_to_handle = true
  else {
    data.response_body = response
    if (outcome.responseBody !== undefined) texts.response = outcome.responseJsonText
  }
}

/** First 16 hex characters of the presented key's SHA-256 (also for rejected keys: tells guessers apart). */
function apiKeyHash(ctx: RequestContext): string | undefined {
  if (ctx.principal?.keyHash) return ctx.principal.keyHash.slice(0, 16)
  if (ctx.principal) return undefined
  const presented = presentedKey(ctx.headers)
  return presented.kind === 'key' && presented.key.length <= MAX_PRESENTED_KEY_LENGTH ? keyDigest(presented.key).toString('hex').slice(0, 16) : undefined
}

/** The summary without a priced usage record (usage feature on but the meter not run): tokens only. */
export function usageSummary(usage: TokenUsage, ctx: Pick<RequestContext, 'revisions'>): RequestUsageSummary {
  return summaryFromTokens(
    usage,
    ctx.revisions.reduce((sum, r) => sum + (r.tokens_saved || 0), 0),
    0,
  )
}
