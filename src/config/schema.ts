/**
 * @module The gateway's configuration, validated once at start-up. YAML keys are snake_case, like the
 * service description's `virtual_models`; every field can also come from an environment variable (see load.ts).
 */
import { z } from 'zod'
import { FEATURE_IDS, type FeatureId } from '../pipeline/snapshots.ts'
import { labelsConfigSchema } from '../labels/config.ts'
import { budgetInputSchema, rateLimitInputSchema } from '../limits/definitions.ts'
import { modelPriceSchema } from '../usage/pricing.ts'
import { workflowInputSchema } from '../workflows/definition.ts'
import { PROVIDER_TYPE_NAMES } from './provider-catalog.ts'
import { modelIdProblem } from '../models/model-id.ts'
import { mcpConfigSchema } from '../mcp/config.ts'
import { jwtConfigSchema } from '../keys/jwt/config.ts'
import { oidcConfigSchema } from '../sso/config.ts'
import { filesConfigSchema } from '../files/config.ts'

const booleanFromEnv = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v))])
const integer = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max)

/** A model name as a request could name it (src/models/model-id.ts): a selector, a bare id or a virtual model's source. */
export const modelSelectorSchema = z.string().superRefine((name, ctx) => {
  const problem = modelIdProblem(name)
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `expected a model name, but ${problem}` })
})

/** A region or location name as the clouds spell them (`us-east-1`, `europe-west4`, `global`): it goes into a host name. */
const cloudPlace = z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, 'expected a region name such as us-east-1 or europe-west4')

/** Bedrock: where its AWS credentials come from when not from the SDK's default chain (docs/providers.md). */
export const awsCredentialsSchema = z.strictObject({
  access_key_id: z.string().min(1).optional(),
  secret_access_key: z.string().min(1).optional(),
  session_token: z.string().min(1).optional(),
  /** A profile of the shared credentials and config files. */
  profile: z.string().min(1).optional(),
  /** With `web_identity_token_file`: the role assumed through STS. */
  role_arn: z.string().startsWith('arn:').optional(),
  web_identity_token_file: z.string().min(1).optional(),
})

/** Vertex AI: the key file (service account, authorized user, external account); default Application Default Credentials. */
export const googleCredentialsSchema = z.strictObject({ credentials_file: z.string().min(1).optional() })

/** Azure: a Microsoft Entra ID app (client credentials with a secret, or a federated token file) instead of `api_key`. */
export const entraCredentialsSchema = z.strictObject({
  tenant_id: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  federated_token_file: z.string().min(1).optional(),
  /** Default https://login.microsoftonline.com (AZURE_AUTHORITY_HOST). */
  authority_host: z.url({ protocol: /^https?$/ }).optional(),
})

export const providerConfigSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPE_NAMES as [string, ...string[]]),
  api_key: z.string().min(1).optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Static model list: used when the upstream's own list cannot be fetched, and always resolvable. */
  models: z.array(z.string().min(1)).default([]),
  /** Azure OpenAI only. */
  api_version: z.string().min(1).optional(),
  /** Bedrock: the AWS region (default AWS_REGION, then AWS_DEFAULT_REGION). */
  region: cloudPlace.optional(),
  /** Vertex AI: the Google Cloud project (default VERTEX_PROJECT, then GOOGLE_CLOUD_PROJECT) and location (default VERTEX_LOCATION, then us-central1). */
  project: z
    .string()
    .regex(/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, 'expected a Google Cloud project id')
    .optional(),
  location: cloudPlace.optional(),
  aws: awsCredentialsSchema.optional(),
  google: googleCredentialsSchema.optional(),
  entra: entraCredentialsSchema.optional(),
})
export type ProviderConfig = z.infer<typeof providerConfigSchema>

export const virtualModelSchema = z.strictObject({
  source: modelSelectorSchema,
  target: modelSelectorSchema,
  /** Optional weighted spread: requests go to one of these by weight; the others (then `target`) are fallbacks. */
  targets: z
    .array(z.strictObject({ target: modelSelectorSchema, weight: z.number().positive().default(1) }))
    .min(1)
    .optional(),
})
export type VirtualModel = z.infer<typeof virtualModelSchema>

export const gatewayConfigSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().min(1).default('0.0.0.0'),
      port: integer(0, 65535).default(8080),
      /** Largest accepted request body; larger ones get 413. */
      max_body_bytes: integer(1024).default(32 * 1024 * 1024),
      /**
       * Largest multipart upload (audio transcriptions and translations, image edits), streamed through and never
       * held whole: OpenAI takes audio files up to 25 MB and image edits up to 50 MB; 64 MiB leaves room for the form.
       */
      max_upload_bytes: integer(1024).default(64 * 1024 * 1024),
      /** Idle keep-alive connections close after this; /v1 requests switch it off for themselves. Max 255 (Bun). */
      idle_timeout_seconds: integer(1, 255).default(30),
      /** Time allowed for a whole request body to arrive; slower bodies get 408 and the connection is closed. */
      body_timeout_seconds: integer(1).default(60),
      /** Graceful stop: requests still running this long after SIGTERM end with a 503 (set the orchestrator grace period above it). */
      drain_timeout_seconds: integer(0).default(30),
    })
    .prefault({}),
  /** Administration key. Short keys can be guessed online (throttled or not), so 32 characters at least. */
  master_key: z.string().min(32, 'expected at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
  auth: z
    .strictObject({
      /**
       * Serve /v1 without keys while no master key and no managed key exist. Off by default: without a master key
       * the gateway refuses to start unless this says open on purpose (docs/keys.md).
       */
      allow_open: booleanFromEnv.default(false),
      /** Refuse managed keys without a bound user path on /v1, so no key can claim a path with X-Gateway-User-Path. */
      require_key_user_path: booleanFromEnv.default(false),
      /** Different failed credentials one address (IPv6: one /64) may present in a burst before it is throttled. */
      failure_burst: integer(1).default(30),
      /** Attempts a throttled address regains per second. */
      failure_refill_per_second: z.coerce.number().positive().default(1),
      /** Identity tokens (JWT bearers) from configured issuers, accepted on /v1 and /mcp instead of a managed key. */
      jwt: jwtConfigSchema.prefault({}),
      /** Dashboard sign-in through an OpenID provider, roles from its claims (docs/sso.md). */
      oidc: oidcConfigSchema.prefault({}),
    })
    .prefault({}),
  database: z
    .strictObject({
      /** SQLite file of the embedded default store; relative paths resolve against the working directory. */
      path: z.string().min(1).default('./data/gateway.db'),
      /** PostgreSQL server shared by several replicas (`postgres://…`); when set, it is used instead of `path`. */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
        .optional(),
      /** Connections each replica keeps to PostgreSQL (requests never wait on them; admin calls, writers and reloads do). */
      pool_size: integer(1, 1000).default(10),
      /** TLS to PostgreSQL: `disable`, `require` (encrypted) or `verify-full` (certificate and host checked); unset follows the URL's sslmode. */
      tls: z.enum(['disable', 'require', 'verify-full']).optional(),
      /** PEM file of the certificate authorities to trust with `verify-full` (default: the system's). */
      tls_ca_file: z.string().min(1).optional(),
    })
    .prefault({}),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'expected a lower-case provider name'), providerConfigSchema).default({}),
  virtual_models: z.array(virtualModelSchema).default([]),
  upstream: z
    .strictObject({
      /** Time allowed until the upstream's first byte (headers and first body chunk). */
      ttfb_timeout_ms: integer(1).default(300_000),
      /** Time allowed between two chunks of a streamed upstream body. */
      idle_timeout_ms: integer(1).default(120_000),
      /** Largest non-stream upstream answer the gateway reads; larger ones become 502 upstream_response_too_large. */
      max_response_bytes: integer(1024).default(64 * 1024 * 1024),
      /** How often upstream model lists are refreshed. */
      models_refresh_seconds: integer(5).default(300),
      /** An SSE comment is sent to the client when a stream is quiet this long. */
      keepalive_seconds: integer(1).default(15),
    })
    .prefault({}),
  /** Process-wide switches: a feature is on for a request only when both this and its workflow say so. */
  features: z.strictObject(Object.fromEntries(FEATURE_IDS.map((f) => [f, booleanFromEnv.default(true)])) as Record<FeatureId, z.ZodDefault<typeof booleanFromEnv>>).prefault({}),
  redis: z
    .strictObject({
      /** Shared counters (rate limits, budgets) and response cache for several replicas; empty means in-process. */
      url: z
        .string()
        .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
        .optional(),
    })
    .prefault({}),
  cache: z
    .strictObject({
      /** Memory the response cache may use (LRU beyond it). */
      max_bytes: integer(0).default(64 * 1024 * 1024),
    })
    .prefault({}),
  responses: z
    .strictObject({
      /**
       * Stored Responses threads (`previous_response_id`) are deleted this many days after their last answer;
       * a follow-up on an expired thread gets 404. Separate from the audit retention (`logging.retention_days`).
       */
      thread_retention_days: integer(1, 3650).default(30),
    })
    .prefault({}),
  /** The Files API's byte store and limits (docs/files.md). */
  files: filesConfigSchema.prefault({}),
  /** The Batches API (docs/batches.md): how the gateway runs the lines no provider batch API takes. */
  batches: z
    .strictObject({
      /** Lines of one batch the gateway runs at the same time (each still under the key's rate limits). */
      concurrency: integer(1, 256).default(4),
      /** How often each replica looks for batches to work on (a batch whose replica died is taken over then). */
      poll_seconds: integer(1, 3600).default(5),
      /** Most lines in one input file (OpenAI's limit is 50,000). */
      max_lines: integer(1, 1_000_000).default(50_000),
      /** The gateway runs every line itself, also for providers that have a batch API. */
      gateway_run_all: booleanFromEnv.default(false),
    })
    .prefault({}),
  /** Budgets (`{scope, window, limit_usd}`) and rate limits (`{scope, requests_per_minute, …}`); see docs/limits.md. */
  budgets: z.array(budgetInputSchema).default([]),
  rate_limits: z.array(rateLimitInputSchema).default([]),
  /** Price overrides in USD per million tokens, by `<provider>/<model>` or model id (prefixes match too). */
  pricing: z.record(z.string().min(1), modelPriceSchema).default({}),
  /** Output token limits by `<provider>/<model>` or model id, over the bundled table (src/models/catalog.ts). */
  model_output_limits: z.record(z.string().min(1), z.number().int().positive()).default({}),
  /** Request labels from tagging headers (docs/labels.md): in every audit entry, an audit filter, a usage dimension. */
  labels: labelsConfigSchema.prefault({}),
  /** Declared workflows; each change becomes a new version at start-up. */
  workflows: z.array(workflowInputSchema).default([]),
  logging: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      log_bodies: booleanFromEnv.default(false),
      log_headers: booleanFromEnv.default(false),
      retention_days: integer(0).default(30),
      /** Audit writer queue (docs/audit.md): entries and estimated bytes held in memory before overflow spills to disk. */
      audit_queue_size: integer(1).default(10_000),
      audit_queue_max_bytes: integer(1024).default(64 * 1024 * 1024),
      /** Entries per write transaction, and the longest an entry waits in the queue before a batch is written. */
      audit_batch_size: integer(1, 10_000).default(1000),
      audit_flush_interval_ms: integer(1).default(200),
      /** Overflow (spill) files; default `<database.path>.audit-spill`. */
      audit_spill_dir: z.string().min(1).optional(),
      /** Held in memory when neither the database nor the spill folder takes writes (a full disk); past it entries are lost, each logged. */
      audit_memory_max_bytes: integer(1024).default(256 * 1024 * 1024),
      /** Usage records queued in memory while the database refuses writes; past it they are lost, counted and logged. */
      usage_queue_size: integer(1).default(200_000),
      /** `json`, `pretty` (human-readable), or `auto`: pretty when stdout is a terminal. */
      format: z.enum(['auto', 'json', 'pretty']).default('auto'),
      /** One log line per request (status, duration, model, key id); default: on only when the audit feature is off. */
      access_log: booleanFromEnv.optional(),
    })
    .prefault({}),
  /** The MCP gateway (/mcp): upstream MCP servers, tool visibility, sessions (docs/mcp.md). */
  mcp: mcpConfigSchema.prefault({}),
  /** Prometheus `/metrics` and the `x-gateway-overhead-ms` response header (README, "Run in production"). */
  metrics: z
    .strictObject({
      enabled: booleanFromEnv.default(true),
      /** Serve /metrics without credentials, for a scraper on a private network; otherwise it takes an admin credential. */
      public: booleanFromEnv.default(false),
      overhead_header: booleanFromEnv.default(true),
    })
    .prefault({}),
})

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>
