/**
 * @module The PostgreSQL tables as drizzle `pg-core` definitions: the query layer's types and the source drizzle-kit
 * generates the migrations from (`bun run db:generate`, into ./drizzle; docs/migrations.md). Constraint and index
 * names are spelled out as the databases made before drizzle-kit have them, so those upgrade in place unchanged.
 *
 * The audit log is not here: it is partitioned by time, which drizzle's table builder cannot express, so its
 * tables are a custom migration (./drizzle/0001_audit_log.sql) and its queries are SQL (audit-log.ts).
 * Timestamps are RFC 3339 text where the SQLite store keeps them so (keys, workflows), epoch milliseconds as
 * bigint where ranges are queried (audit, usage).
 */
import { sql } from 'drizzle-orm'
import { bigint, boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_key'),
    redactedKey: text('redacted_key').notNull(),
    userPath: text('user_path'),
    allowedModels: jsonb('allowed_models').$type<string[] | null>(),
    /** Admin role (src/admin/roles.ts); NULL: no admin access. */
    role: text('role'),
    /**
     * Legacy: what releases before roles read as "admin access". Kept true only for unscoped admins (the store
     * writes it from `role` and `user_path`), so a replica of the previous release in a rolling upgrade grants
     * nothing a key does not have; nothing here reads it.
     */
    dashboardEnabled: boolean('dashboard_enabled').notNull().default(false),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    revokedAt: text('revoked_at'),
    createdBy: text('created_by').notNull(),
  },
  (t) => [index('api_keys_created_at').on(t.createdAt), index('api_keys_created_by').on(t.createdBy)],
)

export const workflowVersions = pgTable(
  'workflow_versions',
  {
    versionId: text('version_id').primaryKey(),
    workflowId: text('workflow_id').notNull(),
    version: integer('version').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    scope: jsonb('scope').notNull(),
    features: jsonb('features').notNull(),
    plugins: jsonb('plugins').notNull(),
    active: boolean('active').notNull(),
    createdAt: text('created_at').notNull(),
    createdBy: text('created_by').notNull(),
  },
  (t) => [
    unique('workflow_versions_workflow_id_version_key').on(t.workflowId, t.version),
    index('workflow_versions_active').on(t.active, t.workflowId),
    index('workflow_versions_name').on(t.name, t.createdAt),
  ],
)

export const limitDefinitions = pgTable(
  'limit_definitions',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    definition: jsonb('definition').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [check('limit_definitions_kind_check', sql`${t.kind} IN ('budget', 'rate_limit')`)],
)

export const priceOverrides = pgTable('price_overrides', {
  model: text('model').primaryKey(),
  price: jsonb('price').notNull(),
  updatedAt: text('updated_at').notNull(),
})

export const responseThreads = pgTable(
  'response_threads',
  {
    id: text('id').primaryKey(),
    createdAt: text('created_at').notNull(),
    providerName: text('provider_name').notNull(),
    native: boolean('native').notNull(),
    items: jsonb('items').notNull(),
    /** The owner (ResponseThreadOwner); '' in threads saved before owners were stored, which nobody can read. */
    principalId: text('principal_id').notNull().default(''),
    userPath: text('user_path').notNull().default(''),
    /** The response as answered (ResponseThread.response); null in threads saved before it was kept. */
    response: jsonb('response').$type<Record<string, unknown>>(),
  },
  (t) => [index('response_threads_created_at').on(t.createdAt)],
)

/** The Files API's records (src/files); the bytes are in the byte store under the id. Ids are time-ordered. */
export const files = pgTable(
  'files',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    userPath: text('user_path').notNull(),
    purpose: text('purpose').notNull(),
    filename: text('filename').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    /** Epoch seconds. */
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    /** Epoch seconds; null: kept until deleted. */
    expiresAt: bigint('expires_at', { mode: 'number' }),
  },
  (t) => [index('files_owner').on(t.owner, t.id), index('files_expires_at').on(t.expiresAt), index('files_user_path').on(t.userPath, t.id)],
)

/** The Uploads API's uploads (src/files/uploads); their parts below, whose bytes are in the byte store until the upload ends. */
export const uploads = pgTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    userPath: text('user_path').notNull(),
    filename: text('filename').notNull(),
    purpose: text('purpose').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    mimeType: text('mime_type').notNull(),
    /** Epoch seconds. */
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    fileExpiresAfter: bigint('file_expires_after', { mode: 'number' }),
    status: text('status', { enum: ['pending', 'completed', 'cancelled'] }).notNull(),
    fileId: text('file_id'),
  },
  (t) => [index('uploads_expires_at').on(t.expiresAt)],
)

export const uploadParts = pgTable(
  'upload_parts',
  {
    id: text('id').primaryKey(),
    uploadId: text('upload_id').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('upload_parts_upload').on(t.uploadId)],
)

export const usageRecords = pgTable(
  'usage_records',
  {
    id: text('id').primaryKey(),
    ts: bigint('ts', { mode: 'number' }).notNull(),
    key_id: text('key_id').notNull(),
    user_path: text('user_path').notNull(),
    provider_name: text('provider_name').notNull(),
    provider_type: text('provider_type').notNull(),
    model: text('model').notNull(),
    requested_model: text('requested_model').notNull(),
    prompt_tokens: integer('prompt_tokens').notNull(),
    completion_tokens: integer('completion_tokens').notNull(),
    total_tokens: integer('total_tokens').notNull(),
    cached_tokens: integer('cached_tokens').notNull(),
    cache_write_tokens: integer('cache_write_tokens').notNull(),
    reasoning_tokens: integer('reasoning_tokens').notNull(),
    cost_usd: doublePrecision('cost_usd').notNull(),
    saved_usd: doublePrecision('saved_usd').notNull(),
    rewrite_tokens_saved: integer('rewrite_tokens_saved').notNull(),
    rewrite_cost_saved: doublePrecision('rewrite_cost_saved').notNull(),
    priced: boolean('priced').notNull(),
    estimated: boolean('estimated').notNull(),
    cache_hit: boolean('cache_hit').notNull(),
    labels: text('labels').array().notNull().default([]),
    /** Work priced per unit (src/usage/units.ts): the unit, '' when tokens only; how many; the variant priced. */
    unit: text('unit').notNull().default(''),
    units: doublePrecision('units').notNull().default(0),
    unit_variant: text('unit_variant').notNull().default(''),
  },
  (t) => [index('usage_records_ts').on(t.ts)],
)

/** MCP servers added through the admin API (src/mcp/); the configuration is sealed. */
export const mcpServers = pgTable('mcp_servers', {
  name: text('name').primaryKey(),
  sealedConfig: text('sealed_config').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/** MCP visibility rules added through the admin API (one JSON document per row). */
export const mcpVisibilityRules = pgTable('mcp_visibility_rules', {
  id: text('id').primaryKey(),
  rule: jsonb('rule').notNull(),
  createdAt: text('created_at').notNull(),
})

/** The gateway as an OAuth client of upstream MCP servers: callers' tokens and its own registrations, sealed. */
export const mcpCredentials = pgTable(
  'mcp_credentials',
  {
    id: text('id').primaryKey(),
    server: text('server').notNull(),
    ownerKind: text('owner_kind').notNull(),
    ownerId: text('owner_id').notNull(),
    userPath: text('user_path'),
    sealed: text('sealed').notNull(),
    scope: text('scope'),
    expiresAt: text('expires_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [unique('mcp_credentials_owner').on(t.server, t.ownerKind, t.ownerId), check('mcp_credentials_owner_kind_check', sql`${t.ownerKind} IN ('key', 'user_path', 'client')`)],
)

/** Batches (src/batches/batch-record.ts): the batch object, its owner and its counts. Times in epoch seconds. */
export const batches = pgTable(
  'batches',
  {
    id: text('id').primaryKey(),
    principalId: text('principal_id').notNull(),
    authMethod: text('auth_method').notNull(),
    keyId: text('key_id'),
    keyHash: text('key_hash'),
    userPath: text('user_path').notNull(),
    labels: jsonb('labels').notNull().$type<string[]>(),
    endpoint: text('endpoint').notNull(),
    inputFileId: text('input_file_id').notNull(),
    completionWindow: text('completion_window').notNull(),
    status: text('status').notNull(),
    outputFileId: text('output_file_id'),
    errorFileId: text('error_file_id'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    inProgressAt: bigint('in_progress_at', { mode: 'number' }),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    finalizingAt: bigint('finalizing_at', { mode: 'number' }),
    completedAt: bigint('completed_at', { mode: 'number' }),
    failedAt: bigint('failed_at', { mode: 'number' }),
    expiredAt: bigint('expired_at', { mode: 'number' }),
    cancellingAt: bigint('cancelling_at', { mode: 'number' }),
    cancelledAt: bigint('cancelled_at', { mode: 'number' }),
    total: integer('total').notNull(),
    completed: integer('completed').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    metadata: jsonb('metadata').$type<Record<string, string>>(),
    errors: jsonb('errors').$type<unknown[]>(),
    /** `output_expires_after.seconds`; null: the output and error files are kept until deleted. */
    outputExpiresAfter: integer('output_expires_after'),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    /** The budget counters holding the batch's estimated cost (src/batches/batch-budget.ts); null: none held. */
    budgetKeys: jsonb('budget_keys').$type<{ key: string; ttlMs: number }[]>(),
  },
  (t) => [index('batches_principal_created').on(t.principalId, t.createdAt), index('batches_status').on(t.status)],
)

/** A batch's lines and each one's progress: who claimed it, what became of it. */
export const batchLines = pgTable(
  'batch_lines',
  {
    batchId: text('batch_id').notNull(),
    lineIndex: integer('line_index').notNull(),
    customId: text('custom_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    body: jsonb('body').notNull().$type<Record<string, unknown>>(),
    state: text('state').notNull(),
    target: text('target'),
    providerJob: text('provider_job'),
    claimedBy: text('claimed_by'),
    claimedAt: bigint('claimed_at', { mode: 'number' }),
    /** The line's estimated cost held in the batch's budgets until it ends, in micro-dollars. */
    estimateMicro: bigint('estimate_micro', { mode: 'number' }).notNull().default(0),
    auditId: text('audit_id'),
    result: jsonb('result').$type<unknown>(),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.batchId, t.lineIndex], name: 'batch_lines_pkey' }), index('batch_lines_state').on(t.batchId, t.state, t.lineIndex)],
)
