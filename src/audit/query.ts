/**
 * @module Query parameters of the audit admin endpoints, validated strictly: every malformed, unknown or repeated
 * parameter is a 400 GatewayError naming it (`param`), so a typo never silently widens an audit query. An empty
 * value counts as not given (dashboards send empty filters). Dates are calendar days in UTC.
 */
import { GATEWAY_ERROR_TYPES, gatewayErrors } from '../errors/gateway-error.ts'
import { normalizeUserPath } from '../keys/user-path.ts'
import type { AuditLogQuery, AuditStatsQuery } from './entry.ts'

/** `countUpTo`: the list counts its matches up to this many unless `exact_total=true` (docs/audit.md, "The total"). */
export const AUDIT_LIST_DEFAULTS = { days: 30, limit: 25, maxLimit: 100, maxDays: 3650, countUpTo: 10_000 } as const
export const CONVERSATION_DEFAULTS = { limit: 40, maxLimit: 200 } as const

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
const MAX_TEXT = 200

/** The parameters /admin/audit/log accepts; any other is refused. */
export const LIST_PARAMS = [
  'days',
  'start_date',
  'end_date',
  'requested_model',
  'model',
  'provider',
  'method',
  'path',
  'user_path',
  'session_id',
  'error_type',
  'status_code',
  'stream',
  'label',
  'batch_id',
  'search',
  'limit',
  'offset',
  'exact_total',
] as const
const STATS_PARAMS = ['days', 'start_date', 'end_date'] as const

const invalid = (param: string, message: string) => gatewayErrors.invalidRequest(message, param, 'invalid_query_parameter')

/** Reads parameters once: rejects unknown and repeated ones; empty values are dropped. */
function readParams(search: URLSearchParams, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  const seen = new Set<string>()
  for (const [name, value] of search) {
    if (!allowed.includes(name)) throw invalid(name, `Unknown query parameter '${name}'. Allowed: ${allowed.join(', ')}.`)
    if (seen.has(name)) throw invalid(name, `Query parameter '${name}' is given more than once.`)
    seen.add(name)
    // A control character (a lone NUL among them) is never part of a real filter; in SQL it can end the string early.
    if (hasControlCharacter(value)) throw invalid(name, `${name}: control characters are not allowed.`)
    if (value.trim() !== '') out.set(name, value.trim())
  }
  return out
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return true
  }
  return false
}

function wholeNumber(params: Map<string, string>, name: string, min: number, max: number, fallback: number): number {
  const raw = params.get(name)
  if (raw === undefined) return fallback
  if (!/^\d{1,9}$/.test(raw)) throw invalid(name, `${name}: expected a whole number, got '${raw.slice(0, 40)}'.`)
  const value = Number(raw)
  if (value < min || value > max) throw invalid(name, `${name}: must be between ${min} and ${max}, got ${value}.`)
  return value
}

function text(params: Map<string, string>, name: string, max = MAX_TEXT): string | undefined {
  const raw = params.get(name)
  if (raw !== undefined && raw.length > max) throw invalid(name, `${name}: longer than ${max} characters.`)
  return raw
}

/** Start of a YYYY-MM-DD day in UTC, epoch ms. */
function day(params: Map<string, string>, name: string): number | undefined {
  const raw = params.get(name)
  if (raw === undefined) return undefined
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw)
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== raw) throw invalid(name, `${name}: expected a date as YYYY-MM-DD, got '${raw.slice(0, 40)}'.`)
  return ms
}

const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS

/**
 * The time window: explicit dates (inclusive days) win; a missing start is `days` before the end; without dates
 * the last `days` calendar days including today. Undefined `to` means up to now.
 */
function window(params: Map<string, string>, now: number): { from: number; to?: number } {
  const days = wholeNumber(params, 'days', 1, AUDIT_LIST_DEFAULTS.maxDays, AUDIT_LIST_DEFAULTS.days)
  const start = day(params, 'start_date')
  const end = day(params, 'end_date')
  if (start === undefined && end === undefined) return { from: startOfDay(now) - (days - 1) * DAY_MS }
  const last = end ?? startOfDay(now)
  const first = start ?? last - (days - 1) * DAY_MS
  if (first > last) throw invalid('start_date', 'start_date must be on or before end_date.')
  return { from: first, to: last + DAY_MS }
}

export function parseAuditLogQuery(search: URLSearchParams, now = Date.now()): AuditLogQuery {
  const params = readParams(search, LIST_PARAMS)
  const requested = text(params, 'requested_model')
  const alias = text(params, 'model')
  if (requested !== undefined && alias !== undefined && requested !== alias) throw invalid('model', 'model is an alias of requested_model; give one of them.')

  const query: AuditLogQuery = {
    limit: limitParam(params, AUDIT_LIST_DEFAULTS.limit, AUDIT_LIST_DEFAULTS.maxLimit),
    offset: wholeNumber(params, 'offset', 0, 100_000_000, 0),
  }
  const sessionId = text(params, 'session_id')
  const range = window(params, now)
  // A session without dates is the whole session, however old.
  const wholeSession = sessionId !== undefined && !params.has('days') && !params.has('start_date') && !params.has('end_date')
  if (!wholeSession) {
    query.from = range.from
    if (range.to !== undefined) query.to = range.to
  }

  const model = requested ?? alias
  if (model !== undefined) query.requestedModel = model
  const provider = text(params, 'provider')
  if (provider !== undefined) query.provider = provider

  const method = text(params, 'method', 64)
  if (method !== undefined) {
    // An HTTP method, or an MCP request's JSON-RPC method (`tools/call`), which keeps its case.
    if (/^[a-z][A-Za-z_-]*(\/[A-Za-z_-]+)+$/.test(method) || method === 'initialize') query.method = method
    else if (!/^[A-Za-z]+$/.test(method)) throw invalid('method', `method: expected an HTTP method such as POST or an MCP method such as tools/call, got '${method}'.`)
    else query.method = method.toUpperCase()
  }
  const path = text(params, 'path', 512)
  if (path !== undefined) {
    if (!path.startsWith('/')) throw invalid('path', `path: expected a request path starting with '/', e.g. /v1/chat/completions.`)
    query.path = path
  }
  const userPath = params.get('user_path')
  if (userPath !== undefined) {
    const normalized = normalizeUserPath(userPath)
    if (!normalized.ok) throw invalid('user_path', `user_path: ${normalized.reason}.`)
    query.userPath = normalized.path
  }
  if (sessionId !== undefined) query.sessionId = sessionId

  const errorType = params.get('error_type')
  if (errorType !== undefined) {
    if (!(GATEWAY_ERROR_TYPES as readonly string[]).includes(errorType)) throw invalid('error_type', `error_type: expected one of ${GATEWAY_ERROR_TYPES.join(', ')}.`)
    query.errorType = errorType
  }
  if (params.has('status_code')) query.statusCode = wholeNumber(params, 'status_code', 100, 599, 0)

  const stream = flag(params, 'stream')
  if (stream !== undefined) query.stream = stream
  const label = text(params, 'label', 256)
  if (label !== undefined) query.label = label
  // A batch's lines carry the label `batch:<id>` (src/batches/line-runner.ts): the same index serves this filter.
  const batchId = text(params, 'batch_id', 200)
  if (batchId !== undefined) {
    if (label !== undefined) throw invalid('batch_id', 'batch_id and label cannot be combined; give one of them.')
    query.label = `batch:${batchId}`
  }
  const term = text(params, 'search')
  if (term !== undefined) query.search = term
  if (!flag(params, 'exact_total')) query.countUpTo = AUDIT_LIST_DEFAULTS.countUpTo
  return query
}

function flag(params: Map<string, string>, name: string): boolean | undefined {
  const raw = params.get(name)
  if (raw === undefined) return undefined
  if (!['true', 'false', '1', '0'].includes(raw.toLowerCase())) throw invalid(name, `${name}: expected true or false, got '${raw.slice(0, 40)}'.`)
  return raw.toLowerCase() === 'true' || raw === '1'
}

/** Two distinct errors, as the reference gateway has them: not an integer, and out of range. */
function limitParam(params: Map<string, string>, fallback: number, max: number): number {
  const raw = params.get('limit')
  if (raw === undefined) return fallback
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw invalid('limit', `limit: expected a positive whole number, got '${raw.slice(0, 40)}'.`)
  if (Number(raw) > max) throw invalid('limit', `limit: must be between 1 and ${max}, got ${raw}.`)
  return Number(raw)
}

/** Hourly buckets for spans under three days, else daily; never past the current bucket. */
export function parseAuditStatsQuery(search: URLSearchParams, now = Date.now()): AuditStatsQuery {
  const params = readParams(search, STATS_PARAMS)
  const { from, to = startOfDay(now) + DAY_MS } = window(params, now)
  const bucketMs = to - from < 3 * DAY_MS ? HOUR_MS : DAY_MS
  const current = Math.floor(now / bucketMs) * bucketMs + bucketMs
  return { from, to: Math.max(from + bucketMs, Math.min(to, current)), bucketMs }
}

export function parseLogId(search: URLSearchParams, allowed: readonly string[] = ['log_id']): string {
  const params = readParams(search, allowed)
  const id = text(params, 'log_id')
  if (id === undefined) throw invalid('log_id', 'log_id is required: the id of an audit log entry.')
  return id
}

export function parseConversationQuery(search: URLSearchParams): { logId: string; limit: number } {
  const logId = parseLogId(search, ['log_id', 'limit'])
  const params = readParams(search, ['log_id', 'limit'])
  return { logId, limit: limitParam(params, CONVERSATION_DEFAULTS.limit, CONVERSATION_DEFAULTS.maxLimit) }
}
