/**
 * @module The SQLite schema as drizzle tables: what queries are written against and what drizzle-kit generates the
 * migrations in ./drizzle from (`bun run db:generate`, see docs/migrations.md). Column for column the schema that
 * databases made before drizzle have (legacy-migrations.ts), so both upgrade the same way.
 *
 * Not expressible here and added by hand to the baseline migration: the audit search index (an FTS5 virtual table),
 * the cleanup triggers, `WITHOUT ROWID` for the labels table and the planner statistics.
 */
import { sql } from 'drizzle-orm'
import { check, index, integer, primaryKey, real, sqliteTable, text, unique } from 'drizzle-orm/sqlite-core'

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    keyHash: text('key_hash').notNull().unique(),
    redactedKey: text('redacted_key').notNull(),
    userPath: text('user_path'),
    /** JSON array, or NULL for every model. */
    allowedModels: text('allowed_models', { mode: 'json' }).$type<string[]>(),
    /** Admin role (src/admin/roles.ts); NULL: no admin access. */
    role: text('role'),
    /**
     * Legacy: what releases before roles read as "admin access". Kept true only for unscoped admins (the store
     * writes it from `role` and `user_path`), so a replica of the previous release in a rolling upgrade grants
     * nothing a key does not have; nothing here reads it.
     */
    dashboardEnabled: integer('dashboard_enabled', { mode: 'boolean' }).notNull().default(false),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    revokedAt: text('revoked_at'),
    createdBy: text('created_by').notNull(),
  },
  (t) => [index('api_keys_created_at').on(t.createdAt), index('api_keys_created_by').on(t.createdBy)],
)

export const auditLog = sqliteTable(
  'audit_log',
  {
    /** Time-ordered row key: start time in ms × 1024 + a counter (see audit-log.ts). */
    seq: integer('seq').primaryKey(),
    id: text('id').notNull().unique(),
    ts: integer('ts').notNull(),
    durationNs: integer('duration_ns').notNull().default(0),
    requestId: text('request_id').notNull().default(''),
    requestedModel: text('requested_model').notNull().default(''),
    resolvedModel: text('resolved_model').notNull().default(''),
    provider: text('provider').notNull().default(''),
    providerName: text('provider_name').notNull().default(''),
    method: text('method').notNull().default(''),
    path: text('path').notNull().default(''),
    statusCode: integer('status_code').notNull().default(0),
    stream: integer('stream').notNull().default(0),
    errorType: text('error_type').notNull().default(''),
    sessionId: text('session_id').notNull().default(''),
    userPath: text('user_path').notNull().default('/'),
    principalId: text('principal_id').notNull().default(''),
    authKeyId: text('auth_key_id').notNull().default(''),
    authMethod: text('auth_method').notNull().default(''),
    clientIp: text('client_ip').notNull().default(''),
    cacheType: text('cache_type').notNull().default(''),
    aliasUsed: integer('alias_used').notNull().default(0),
    workflowVersionId: text('workflow_version_id').notNull().default(''),
    eventType: text('event_type').notNull().default(''),
    responseId: text('response_id'),
    previousResponseId: text('previous_response_id'),
    conversationPayload: integer('conversation_payload').notNull().default(0),
    /** JSON of the light LogData. */
    data: text('data').notNull(),
    /** JSON of the RequestUsageSummary. */
    usage: text('usage'),
  },
  // Every index is written for every entry, so there are few (migration 0001, docs/audit.md): the filters on a
  // few distinct values (provider, method, path, stream, status 200) read the wide time index alone; status and
  // error type index only the entries that are not plain successes; session ids and client request ids, whose
  // entries would land on a random page of an index each, are found through the search index.
  (t) => [
    index('audit_log_ts').on(t.ts, t.statusCode, t.durationNs, t.eventType, t.stream, t.method, t.path, t.provider, t.providerName),
    // The status code too, so a model with a status (the dashboard's "errors of this model") reads the index alone.
    index('audit_log_model_ts').on(t.requestedModel, t.ts, t.statusCode),
    index('audit_log_user_path_ts').on(t.userPath, t.ts),
    index('audit_log_status_ts').on(t.statusCode, t.ts).where(sql`status_code <> 200`),
    index('audit_log_error_type_ts').on(t.errorType, t.ts).where(sql`error_type <> ''`),
    index('audit_log_response_id').on(t.responseId).where(sql`response_id IS NOT NULL`),
    index('audit_log_previous_response_id').on(t.previousResponseId).where(sql`previous_response_id IS NOT NULL`),
  ],
)

/** The heavy part of an entry's LogData (bodies, attempts' error bodies, revision bodies), read by the detail view only. */
export const auditLogPayloads = sqliteTable('audit_log_payloads', {
  seq: integer('seq').primaryKey(),
  payload: text('payload').notNull(),
})

/** Labels (LogData.labels) as rows of their own, so `label=` is an index range read. */
export const auditLogLabels = sqliteTable(
  'audit_log_labels',
  {
    label: text('label').notNull(),
    seq: integer('seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.label, t.seq] }), index('audit_log_labels_seq').on(t.seq)],
)

export const responseThreads = sqliteTable(
  'response_threads',
  {
    id: text('id').primaryKey(),
    createdAt: text('created_at').notNull(),
    providerName: text('provider_name').notNull(),
    native: integer('native', { mode: 'boolean' }).notNull(),
    items: text('items', { mode: 'json' }).notNull().$type<unknown[]>(),
    /** The owner (ResponseThreadOwner); '' in threads saved before owners were stored, which nobody can read. */
    principalId: text('principal_id').notNull().default(''),
    userPath: text('user_path').notNull().default(''),
    /** The response as answered (ResponseThread.response); null in threads saved before it was kept. */
    response: text('response', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [index('response_threads_created_at').on(t.createdAt)],
)

/** The Files API's records (src/files); the bytes are in the byte store under the id. Ids are time-ordered. */
export const files = sqliteTable(
  'files',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    userPath: text('user_path').notNull(),
    purpose: text('purpose').notNull(),
    filename: text('filename').notNull(),
    bytes: integer('bytes').notNull(),
    sha256: text('sha256').notNull(),
    /** Epoch seconds. */
    createdAt: integer('created_at').notNull(),
    /** Epoch seconds; null: kept until deleted. */
    expiresAt: integer('expires_at'),
  },
  (t) => [index('files_owner').on(t.owner, t.id), index('files_expires_at').on(t.expiresAt), index('files_user_path').on(t.userPath, t.id)],
)

/** The Uploads API's uploads (src/files/uploads); their parts below, whose bytes are in the byte store until the upload ends. */
export const uploads = sqliteTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    userPath: text('user_path').notNull(),
    filename: text('filename').notNull(),
    purpose: text('purpose').notNull(),
    bytes: integer('bytes').notNull(),
    mimeType: text('mime_type').notNull(),
    /** Epoch seconds. */
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    fileExpiresAfter: integer('file_expires_after'),
    status: text('status', { enum: ['pending', 'completed', 'cancelled'] }).notNull(),
    fileId: text('file_id'),
  },
  (t) => [index('uploads_expires_at').on(t.expiresAt)],
)

export const uploadParts = sqliteTable(
  'upload_parts',
  {
    id: text('id').primaryKey(),
    uploadId: text('upload_id').notNull(),
    bytes: integer('bytes').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('upload_parts_upload').on(t.uploadId)],
)

export const workflowVersions = sqliteTable(
  'workflow_versions',
  {
    versionId: text('version_id').primaryKey(),
    workflowId: text('workflow_id').notNull(),
    version: integer('version').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    scope: text('scope', { mode: 'json' }).notNull(),
    features: text('features', { mode: 'json' }).notNull(),
    plugins: text('plugins', { mode: 'json' }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    createdBy: text('created_by').notNull(),
  },
  (t) => [unique().on(t.workflowId, t.version), index('workflow_versions_active').on(t.active, t.workflowId)],
)

/** Budgets and rate limits, one JSON document per row. */
export const limitDefinitions = sqliteTable(
  'limit_definitions',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['budget', 'rate_limit'] }).notNull(),
    definition: text('definition').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('limit_definitions_kind', sql`${t.kind} IN ('budget', 'rate_limit')`)],
)

export const usageRecords = sqliteTable(
  'usage_records',
  {
    id: text('id').primaryKey(),
    ts: integer('ts').notNull(),
    keyId: text('key_id').notNull(),
    userPath: text('user_path').notNull(),
    providerName: text('provider_name').notNull(),
    providerType: text('provider_type').notNull(),
    model: text('model').notNull(),
    requestedModel: text('requested_model').notNull(),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    totalTokens: integer('total_tokens').notNull(),
    cachedTokens: integer('cached_tokens').notNull(),
    cacheWriteTokens: integer('cache_write_tokens').notNull(),
    reasoningTokens: integer('reasoning_tokens').notNull(),
    costUsd: real('cost_usd').notNull(),
    savedUsd: real('saved_usd').notNull(),
    rewriteTokensSaved: integer('rewrite_tokens_saved').notNull(),
    rewriteCostSaved: real('rewrite_cost_saved').notNull(),
    priced: integer('priced', { mode: 'boolean' }).notNull(),
    estimated: integer('estimated', { mode: 'boolean' }).notNull(),
    cacheHit: integer('cache_hit', { mode: 'boolean' }).notNull(),
    /** JSON array of the request's labels. */
    labels: text('labels').notNull().default('[]'),
    /** Work priced per unit (src/usage/units.ts): the unit, '' when tokens only; how many; the variant priced. */
    unit: text('unit').notNull().default(''),
    units: real('units').notNull().default(0),
    unitVariant: text('unit_variant').notNull().default(''),
  },
  (t) => [index('usage_records_ts').on(t.ts)],
)

export const priceOverrides = sqliteTable('price_overrides', {
  model: text('model').primaryKey(),
  /** JSON of the ModelPrice. */
  price: text('price').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** MCP servers added through the admin API (src/mcp/); the configuration is sealed. */
export const mcpServers = sqliteTable('mcp_servers', {
  name: text('name').primaryKey(),
  sealedConfig: text('sealed_config').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** MCP visibility rules added through the admin API (one JSON document per row). */
export const mcpVisibilityRules = sqliteTable('mcp_visibility_rules', {
  id: text('id').primaryKey(),
  rule: text('rule').notNull(),
  createdAt: text('created_at').notNull(),
})

/** The gateway as an OAuth client of upstream MCP servers: callers' tokens and its own registrations, sealed. */
export const mcpCredentials = sqliteTable(
  'mcp_credentials',
  {
    id: text('id').primaryKey(),
    server: text('server').notNull(),
    ownerKind: text('owner_kind', { enum: ['key', 'user_path', 'client'] }).notNull(),
    ownerId: text('owner_id').notNull(),
    userPath: text('user_path'),
    sealed: text('sealed').notNull(),
    scope: text('scope'),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [unique('mcp_credentials_owner').on(t.server, t.ownerKind, t.ownerId), check('mcp_credentials_owner_kind', sql`${t.ownerKind} IN ('key', 'user_path', 'client')`)],
)

/** Batches (src/batches/batch-record.ts): the batch object, its owner and its counts. Times in epoch seconds. */
export const batches = sqliteTable(
  'batches',
  {
    id: text('id').primaryKey(),
    principalId: text('principal_id').notNull(),
    authMethod: text('auth_method').notNull(),
    keyId: text('key_id'),
    keyHash: text('key_hash'),
    userPath: text('user_path').notNull(),
    labels: text('labels', { mode: 'json' }).notNull().$type<string[]>(),
    endpoint: text('endpoint').notNull(),
    inputFileId: text('input_file_id').notNull(),
    completionWindow: text('completion_window').notNull(),
    status: text('status').notNull(),
    outputFileId: text('output_file_id'),
    errorFileId: text('error_file_id'),
    createdAt: integer('created_at').notNull(),
    inProgressAt: integer('in_progress_at'),
    expiresAt: integer('expires_at').notNull(),
    finalizingAt: integer('finalizing_at'),
    completedAt: integer('completed_at'),
    failedAt: integer('failed_at'),
    expiredAt: integer('expired_at'),
    cancellingAt: integer('cancelling_at'),
    cancelledAt: integer('cancelled_at'),
    total: integer('total').notNull(),
    completed: integer('completed').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>(),
    errors: text('errors', { mode: 'json' }).$type<unknown[]>(),
    /** `output_expires_after.seconds`; null: the output and error files are kept until deleted. */
    outputExpiresAfter: integer('output_expires_after'),
    costUsd: real('cost_usd').notNull().default(0),
    /** The budget counters holding the batch's estimated cost (src/batches/batch-budget.ts); null: none held. */
    budgetKeys: text('budget_keys', { mode: 'json' }).$type<{ key: string; ttlMs: number }[]>(),
  },
  (t) => [index('batches_principal_created').on(t.principalId, t.createdAt), index('batches_status').on(t.status)],
)

/** A batch's lines and each one's progress: who claimed it, what became of it. */
export const batchLines = sqliteTable(
  'batch_lines',
  {
    batchId: text('batch_id').notNull(),
    lineIndex: integer('line_index').notNull(),
    customId: text('custom_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    body: text('body', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    state: text('state').notNull(),
    target: text('target'),
    providerJob: text('provider_job'),
    claimedBy: text('claimed_by'),
    claimedAt: integer('claimed_at'),
    /** The line's estimated cost held in the batch's budgets until it ends, in micro-dollars. */
    estimateMicro: integer('estimate_micro').notNull().default(0),
    auditId: text('audit_id'),
    result: text('result', { mode: 'json' }).$type<unknown>(),
    costUsd: real('cost_usd').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.lineIndex] }), index('batch_lines_state').on(t.batchId, t.state, t.lineIndex)],
)
