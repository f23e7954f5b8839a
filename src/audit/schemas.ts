/**
 * @module zod schemas of the audit log entry and the audit admin API's answers: the one source of their shape.
 * They give the types (src/audit/entry.ts), the OpenAPI document of /admin/audit and the dashboard's parser
 * (src/dashboard/api/schemas.ts); storage columns are the stores' (src/stores/*) mapping of these fields.
 */
import { z } from 'zod'
import { FEATURE_IDS } from '../pipeline/snapshots.ts'
import { USAGE_UNITS } from '../usage/units.ts'

const stringMap = z.record(z.string(), z.string())

export const attemptSnapshotSchema = z.object({
  seq: z.number().int(),
  kind: z.string().describe('primary, retry or failover'),
  model: z.string(),
  provider_name: z.string(),
  provider_type: z.string(),
  started_at: z.string(),
  duration_ns: z.number().int(),
  success: z.boolean(),
  status_code: z.number().int(),
  error_code: z.string().optional(),
  error_message: z.string().optional(),
  error_type: z.string().optional(),
  response_body: z.unknown().optional().describe('Raw upstream error body of a failed attempt; only with body logging (detail endpoint).'),
  response_headers: stringMap.optional().describe('Redacted; only with header logging (detail endpoint).'),
})

export const failoverSnapshotSchema = z.object({ target_model: z.string() })

export const requestRevisionSnapshotSchema = z.object({
  seq: z.number().int(),
  rewriter: z.string(),
  bytes_before: z.number().int(),
  bytes_after: z.number().int(),
  tokens_saved: z.number().int(),
  body: z.unknown().optional(),
  detail: z.unknown().optional(),
  no_change: z.boolean().optional(),
})

/** What an MCP request (POST /mcp, /mcp/{server}) was about and how it ended; the entry's `method` is the JSON-RPC method. */
export const mcpRequestSnapshotSchema = z.object({
  server: z.string().optional().describe('The upstream server the request went to'),
  name: z.string().optional().describe("The tool's or prompt's name on its server, or the resource's URI there"),
  jsonrpc_id: z.union([z.string(), z.number()]).optional(),
  protocol_version: z.string().optional(),
  mcp_session: z.string().optional().describe("A digest of the gateway's Mcp-Session-Id (the id itself is a credential-bound token, not stored)"),
  argument_bytes: z.number().int().optional(),
  result_bytes: z.number().int().optional(),
  is_error: z.boolean().optional().describe('The tool answered with isError: true'),
  rpc_error_code: z.number().int().optional(),
  price_usd: z.number().optional().describe('Charged to budgets for this call'),
  items: z.number().int().optional().describe('Items a list answered'),
  tool_call_id: z
    .string()
    .optional()
    .describe("The model's tool call this request carries out, as the client names it (Claude Code's toolUseId, Codex's callId): the same id is in the model request's answer"),
})

export const workflowFeaturesSnapshotSchema = z.object(Object.fromEntries(FEATURE_IDS.map((f) => [f, z.boolean()])) as Record<(typeof FEATURE_IDS)[number], z.ZodBoolean>)

export const binaryBodySchema = z.object({
  content_type: z.string(),
  bytes: z.number().int(),
  sha256: z.string().describe('Hex SHA-256 of the bytes as the client received them.'),
})

export const uploadPartSchema = z.object({
  name: z.string(),
  filename: z.string().nullable().describe('null for a text field'),
  content_type: z.string().nullable(),
  bytes: z.number().int(),
  sha256: z.string().describe('Hex SHA-256 of the part as the client sent it; empty when the upload broke off inside it.'),
})

export const logDataSchema = z.object({
  api_key_hash: z.string().optional().describe('First 16 hex characters of the SHA-256 of the presented key.'),
  user_agent: z.string().optional(),
  temperature: z.number().optional(),
  max_tokens: z.number().int().optional(),
  labels: z.array(z.string()).optional().describe('Request labels from the configured tagging headers (docs/labels.md).'),
  error_code: z.string().optional(),
  error_message: z.string().optional(),
  error_provider: z.string().optional().describe('Upstream provider the error came from; empty when the gateway raised it.'),
  event_type: z.string().optional().describe('Set on security lifecycle entries only.'),
  event_subject_id: z.string().optional(),
  event_message: z.string().optional(),
  event_before: z.unknown().optional().describe('Security events of admin changes: the subject before the change (null when it was created).'),
  event_after: z.unknown().optional().describe('Security events of admin changes: the subject after the change (null when it was deleted).'),
  request_headers: stringMap.optional(),
  response_headers: stringMap.optional(),
  request_body: z.unknown().optional(),
  response_body: z.unknown().optional(),
  request_body_too_big_to_handle: z.boolean().optional(),
  request_parts: z.array(uploadPartSchema).optional().describe("A multipart upload recorded part by part (never its files' bytes); with bodies logged."),
  response_body_too_big_to_handle: z.boolean().optional(),
  response_binary: binaryBodySchema.optional().describe('A binary answer (audio) recorded by what it is, never its bytes; with bodies logged.'),
  attempts: z.array(attemptSnapshotSchema).optional(),
  failover: failoverSnapshotSchema.optional(),
  request_revisions: z.array(requestRevisionSnapshotSchema).optional(),
  workflow_features: workflowFeaturesSnapshotSchema.optional(),
  trace_id: z.string().optional().describe('OpenTelemetry trace id (32 hex characters), when the request was traced.'),
  mcp: mcpRequestSnapshotSchema.optional().describe('Set on MCP requests only (docs/mcp.md).'),
  batch: z
    .object({ id: z.string(), custom_id: z.string() })
    .optional()
    .describe('Set on the requests the gateway ran as lines of a batch (docs/batches.md): the batch and the line.'),
})

export const requestUsageSummarySchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cached_input_tokens: z.number().int(),
  uncached_input_tokens: z.number().int(),
  cache_write_input_tokens: z.number().int(),
  cached_input_ratio: z.number(),
  estimated_cached_characters: z.number().int(),
  rewrite_tokens_saved: z.number().int(),
  rewrite_cost_saved: z.number(),
  cost_usd: z.number().optional().describe('USD at the gateway prices; only when the usage meter priced the request.'),
  unit: z.enum(USAGE_UNITS).optional().describe('Work priced per unit besides tokens (images, audio seconds, characters, search units); absent when none.'),
  units: z.number().optional().describe('How many of `unit`.'),
  unit_variant: z.string().optional().describe("What the unit's price depends on (`<size>/<quality>` for images)."),
  entries: z.number().int(),
})

export const auditLogEntrySchema = z.object({
  id: z.string().describe('UUID'),
  timestamp: z.string().describe('RFC 3339, when the request started'),
  duration_ns: z.number().int(),
  request_id: z.string(),
  requested_model: z.string(),
  resolved_model: z.string(),
  provider: z.string(),
  provider_name: z.string(),
  method: z.string(),
  path: z.string(),
  status_code: z.number().int(),
  stream: z.boolean(),
  error_type: z.string(),
  session_id: z.string(),
  user_path: z.string(),
  principal_id: z.string(),
  auth_key_id: z.string(),
  auth_method: z.string(),
  client_ip: z.string(),
  cache_type: z.string(),
  alias_used: z.boolean(),
  workflow_version_id: z.string(),
  bodies_omitted: z.boolean().optional(),
  conversation_payload: z.boolean().optional(),
  data: logDataSchema,
  usage: requestUsageSummarySchema.optional(),
})

export const auditLogPageSchema = z.object({
  entries: z.array(auditLogEntrySchema),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
  /** `eq`: `total` is exact; `gte`: more match, counting stopped at `total` (ask with `exact_total=true` for the exact number). */
  total_relation: z.enum(['eq', 'gte']),
})

export const auditConversationSchema = z.object({
  anchor_id: z.string(),
  entries: z.array(auditLogEntrySchema),
  truncated: z.boolean(),
})

export const auditStatsSchema = z.object({
  interval: z.enum(['hour', 'day']),
  from: z.string(),
  to: z.string(),
  buckets: z.array(
    z.object({
      start: z.string(),
      requests: z.number().int(),
      status_2xx: z.number().int(),
      status_4xx: z.number().int(),
      status_5xx: z.number().int(),
      status_other: z.number().int(),
      avg_duration_ms: z.number(),
      max_duration_ms: z.number(),
    }),
  ),
  summary: z.object({ requests: z.number().int(), errors: z.number().int(), success_rate: z.number(), avg_duration_ms: z.number() }),
})

export const auditWriterStatsSchema = z.object({
  queue_depth: z.number().int(),
  queue_bytes: z.number().int(),
  queue_capacity: z.number().int(),
  queue_max_bytes: z.number().int(),
  recorded: z.number().int(),
  written: z.number().int(),
  spilled: z.number().int(),
  replayed: z.number().int(),
  failed: z.number().int(),
  batch_failures: z.number().int(),
  duplicates: z.number().int(),
  suppressed: z.number().int(),
  spill_files: z.number().int(),
  spill_bytes: z.number().int(),
  held: z.number().int(),
  held_bytes: z.number().int(),
  held_max_bytes: z.number().int(),
  lost: z.number().int(),
  lag_ms: z.number().int().describe('How long the oldest entry not yet stored has waited (queue, memory or spill files); 0 when none waits'),
  state: z.enum(['ok', 'spilling', 'holding', 'losing']),
  last_error: z.string().nullable(),
})

export const gatewayErrorSchema = z.object({
  error: z.object({ type: z.string(), message: z.string(), code: z.string().nullable(), param: z.string().nullable(), provider: z.string(), status_code: z.number().int() }),
})
