/**
 * @module An audit entry encoded for storage, once, on the thread that captured it (by the writer's loop, a batch
 * at a time: src/stores/write-path/audit-writer.ts): the filterable fields as
 * column values, LogData as two JSON texts (light and heavy, see projection.ts) and the text the search indexes.
 * Bodies that arrived as JSON text are spliced in as that text instead of being serialised again.
 *
 * A row is a positional tuple of strings, numbers and nulls: a batch of them crosses to the SQLite write thread
 * packed into one text and two typed arrays (src/stores/write-path/packed-rows.ts), and the write thread then only
 * binds values: it parses and serialises nothing.
 */
import type { AuditLogEntry } from './entry.ts'
import { looksLikeConversation, splitHeavy, type HeavyPayload } from './projection.ts'
import { searchableText } from './search.ts'

/** The JSON texts the request and response bodies were parsed from, when the capture has them. */
export interface BodyTexts {
  request?: string
  response?: string
}

/** Column names of the stored row, in tuple order (the SQLite store builds its INSERT from this list). */
export const AUDIT_ROW_COLUMNS = [
  'id',
  'ts',
  'duration_ns',
  'request_id',
  'requested_model',
  'resolved_model',
  'provider',
  'provider_name',
  'method',
  'path',
  'status_code',
  'stream',
  'error_type',
  'session_id',
  'user_path',
  'principal_id',
  'auth_key_id',
  'auth_method',
  'client_ip',
  'cache_type',
  'alias_used',
  'workflow_version_id',
  'event_type',
  'response_id',
  'previous_response_id',
  'conversation_payload',
  'data',
  'usage',
] as const

export type AuditRowColumns = [
  id: string,
  /** Start time, epoch milliseconds. */
  ts: number,
  duration_ns: number,
  request_id: string,
  requested_model: string,
  resolved_model: string,
  provider: string,
  provider_name: string,
  method: string,
  path: string,
  status_code: number,
  stream: 0 | 1,
  error_type: string,
  session_id: string,
  user_path: string,
  principal_id: string,
  auth_key_id: string,
  auth_method: string,
  client_ip: string,
  cache_type: string,
  alias_used: 0 | 1,
  workflow_version_id: string,
  event_type: string,
  /** A Responses API answer's id, so a later `previous_response_id` finds it. */
  response_id: string | null,
  previous_response_id: string | null,
  conversation_payload: 0 | 1,
  /** JSON of the light LogData. */
  data: string,
  /** JSON of the RequestUsageSummary. */
  usage: string | null,
]

/** The columns, then the heavy payload's JSON (bodies and the like; null when there is none) and the search text. */
export type AuditRow = [...AuditRowColumns, payload: string | null, search_text: string]

export const AUDIT_ROW_COLUMN_COUNT = AUDIT_ROW_COLUMNS.length
const DATA = AUDIT_ROW_COLUMNS.indexOf('data')
const PAYLOAD = AUDIT_ROW_COLUMN_COUNT
const SEARCH_TEXT = AUDIT_ROW_COLUMN_COUNT + 1

/** Bytes a row holds beyond its texts, for the writer queue's byte budget. */
const ROW_OVERHEAD_BYTES = 512

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function encodeAuditEntry(entry: AuditLogEntry, bodyTexts: BodyTexts = {}): AuditRow {
  const { light, heavy } = splitHeavy(entry.data)
  const response = heavy?.response_body
  const request = heavy?.request_body
  return [
    entry.id,
    Date.parse(entry.timestamp),
    entry.duration_ns,
    entry.request_id,
    entry.requested_model,
    entry.resolved_model,
    entry.provider,
    entry.provider_name,
    entry.method,
    entry.path,
    entry.status_code,
    entry.stream ? 1 : 0,
    entry.error_type,
    entry.session_id,
    entry.user_path || '/',
    entry.principal_id,
    entry.auth_key_id,
    entry.auth_method,
    entry.client_ip,
    entry.cache_type,
    entry.alias_used ? 1 : 0,
    entry.workflow_version_id,
    entry.data.event_type ?? '',
    isObject(response) && response.object === 'response' && typeof response.id === 'string' ? response.id : null,
    isObject(request) && typeof request.previous_response_id === 'string' ? request.previous_response_id : null,
    looksLikeConversation(heavy) ? 1 : 0,
    JSON.stringify(light),
    entry.usage ? JSON.stringify(entry.usage) : null,
    heavy ? heavyJson(heavy, bodyTexts) : null,
    searchableText(entry),
  ]
}

/** The heavy payload's JSON, with each body's original text where the capture kept it. */
function heavyJson(heavy: HeavyPayload, texts: BodyTexts): string {
  let json = ''
  const add = (key: string, valueJson: string) => (json = `${json}${json ? ',' : '{'}"${key}":${valueJson}`)
  if (heavy.request_body !== undefined) add('request_body', texts.request ?? JSON.stringify(heavy.request_body))
  if (heavy.response_body !== undefined) add('response_body', texts.response ?? JSON.stringify(heavy.response_body))
  if (heavy.attempts) add('attempts', JSON.stringify(heavy.attempts))
  if (heavy.revisions) add('revisions', JSON.stringify(heavy.revisions))
  return `${json}}`
}

export const auditRowId = (row: AuditRow): string => row[0]
export const auditRowColumns = (row: AuditRow): AuditRowColumns => row.slice(0, AUDIT_ROW_COLUMN_COUNT) as AuditRowColumns
export const auditRowData = (row: AuditRow): string => row[DATA] as string
export const auditRowPayload = (row: AuditRow): string | null => row[PAYLOAD] as string | null
export const auditRowSearchText = (row: AuditRow): string => row[SEARCH_TEXT] as string

/** Rough size in memory, for the writer queue's byte budget. */
export function auditRowBytes(row: AuditRow): number {
  return ROW_OVERHEAD_BYTES + (row[DATA] as string).length + (auditRowPayload(row)?.length ?? 0)
}

/** Estimated bytes of the light LogData's JSON and of a set of logged headers, before the entry is encoded. */
const LIGHT_DATA_BYTES = 256
const HEADERS_BYTES = 1024
/** A body known only as a parsed value (a folded stream): guessed, until encoding the row measures it. */
const UNMEASURED_BODY_BYTES = 8 * 1024

const bodyBytes = (body: unknown, text: string | undefined): number =>
  body === undefined ? 0 : text !== undefined ? text.length : typeof body === 'string' ? body.length : UNMEASURED_BODY_BYTES

/**
 * The row's size estimated from the entry before it is encoded (the writer queue's byte budget holds entries
 * waiting to be encoded in a batch): what the texts say, guesses for the rest; the row's own size replaces it once
 * encoded.
 */
export function auditEntryBytes(entry: AuditLogEntry, texts: BodyTexts = {}): number {
  const data = entry.data
  let bytes = ROW_OVERHEAD_BYTES + LIGHT_DATA_BYTES + bodyBytes(data.request_body, texts.request) + bodyBytes(data.response_body, texts.response)
  if (data.request_headers) bytes += HEADERS_BYTES
  if (data.response_headers) bytes += HEADERS_BYTES
  if (data.attempts) for (const attempt of data.attempts) bytes += bodyBytes(attempt.response_body, undefined)
  return bytes
}

/** The row's fields in tuple order: the columns, then the heavy payload and the search text. */
export const AUDIT_ROW_FIELDS: readonly string[] = [...AUDIT_ROW_COLUMNS, 'payload', 'search_text']

/**
 * The fields of spill files written before they carried a header (spill format 1): frozen, so a file an older
 * release spilled is read by name even after the current row gains or reorders fields.
 */
export const SPILL_FORMAT_1_FIELDS: readonly string[] = [
  ...['id', 'ts', 'duration_ns', 'request_id', 'requested_model', 'resolved_model', 'provider', 'provider_name', 'method', 'path', 'status_code', 'stream'],
  ...['error_type', 'session_id', 'user_path', 'principal_id', 'auth_key_id', 'auth_method', 'client_ip', 'cache_type', 'alias_used', 'workflow_version_id'],
  ...['event_type', 'response_id', 'previous_response_id', 'conversation_payload', 'data', 'usage', 'payload', 'search_text'],
]

/** What a field missing from an older spill file becomes: null where the row allows it, else empty or zero. */
const FIELD_DEFAULTS: Record<string, string | number | null> = { response_id: null, previous_response_id: null, usage: null, payload: null, user_path: '/' }
const NUMERIC_FIELDS = new Set(['duration_ns', 'status_code', 'stream', 'alias_used', 'conversation_payload'])

/**
 * A row from a tuple whose fields are named by `fields` (a spill file's header, or format 1's list): fields are
 * matched by name, unknown ones dropped, missing ones defaulted. Undefined when it cannot be a row.
 */
export function auditRowFromFields(fields: readonly string[], values: readonly unknown[]): AuditRow | undefined {
  if (values.length !== fields.length) return undefined
  const byName = new Map<string, unknown>()
  for (let i = 0; i < fields.length; i++) byName.set(fields[i]!, values[i])
  const row = AUDIT_ROW_FIELDS.map((name) => (byName.has(name) ? byName.get(name) : name in FIELD_DEFAULTS ? FIELD_DEFAULTS[name] : NUMERIC_FIELDS.has(name) ? 0 : ''))
  return isAuditRow(row) ? row : undefined
}

/** True when `value` has a row's shape (a spill file line read back). */
export function isAuditRow(value: unknown): value is AuditRow {
  return (
    Array.isArray(value) &&
    value.length === SEARCH_TEXT + 1 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'number' &&
    typeof value[DATA] === 'string' &&
    (value[PAYLOAD] === null || typeof value[PAYLOAD] === 'string') &&
    typeof value[SEARCH_TEXT] === 'string'
  )
}
