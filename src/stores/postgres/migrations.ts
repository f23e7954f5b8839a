/**
 * @module Every PostgreSQL migration, in order, as SQL inside the code (the compiled binary needs no files beside
 * it); applied at start-up under an advisory lock (client.ts). Never edit an applied one: add the next.
 *
 * The audit log is three tables partitioned by day on `ts` (epoch ms): the light rows lists read, the heavy
 * payloads (bodies) only the detail view reads, and the labels. Retention drops whole partitions; a DEFAULT
 * partition catches rows outside the partitions made so far (a replay of old spilled entries), so an insert never
 * fails for want of one. Partitions are created ahead of time by partitions.ts.
 */
export interface PgMigration {
  id: string
  sql: string
}

const core: PgMigration = {
  id: '0001_core',
  sql: `
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      key_hash text NOT NULL UNIQUE,
      redacted_key text NOT NULL,
      user_path text,
      allowed_models jsonb,
      dashboard_enabled boolean NOT NULL DEFAULT false,
      expires_at text,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      revoked_at text,
      created_by text NOT NULL
    );
    CREATE INDEX api_keys_created_at ON api_keys (created_at);

    CREATE TABLE workflow_versions (
      version_id text PRIMARY KEY,
      workflow_id text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      description text NOT NULL,
      scope jsonb NOT NULL,
      features jsonb NOT NULL,
      plugins jsonb NOT NULL,
      active boolean NOT NULL,
      created_at text NOT NULL,
      created_by text NOT NULL,
      UNIQUE (workflow_id, version)
    );
    CREATE INDEX workflow_versions_active ON workflow_versions (active, workflow_id);
    CREATE INDEX workflow_versions_name ON workflow_versions (name, created_at);

    CREATE TABLE limit_definitions (
      id text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('budget', 'rate_limit')),
      definition jsonb NOT NULL,
      created_at text NOT NULL
    );

    CREATE TABLE price_overrides (model text PRIMARY KEY, price jsonb NOT NULL, updated_at text NOT NULL);

    CREATE TABLE response_threads (
      id text PRIMARY KEY,
      created_at text NOT NULL,
      provider_name text NOT NULL,
      native boolean NOT NULL,
      items jsonb NOT NULL
    );
    CREATE INDEX response_threads_created_at ON response_threads (created_at);

    CREATE TABLE usage_records (
      id text PRIMARY KEY,
      ts bigint NOT NULL,
      key_id text NOT NULL,
      user_path text NOT NULL,
      provider_name text NOT NULL,
      provider_type text NOT NULL,
      model text NOT NULL,
      requested_model text NOT NULL,
      prompt_tokens integer NOT NULL,
      completion_tokens integer NOT NULL,
      total_tokens integer NOT NULL,
      cached_tokens integer NOT NULL,
      cache_write_tokens integer NOT NULL,
      reasoning_tokens integer NOT NULL,
      cost_usd double precision NOT NULL,
      saved_usd double precision NOT NULL,
      rewrite_tokens_saved integer NOT NULL,
      rewrite_cost_saved double precision NOT NULL,
      priced boolean NOT NULL,
      estimated boolean NOT NULL,
      cache_hit boolean NOT NULL,
      labels text[] NOT NULL DEFAULT '{}'
    );
    CREATE INDEX usage_records_ts ON usage_records (ts);
  `,
}

const auditLog: PgMigration = {
  id: '0002_audit_log',
  sql: `
    CREATE SEQUENCE audit_log_seq;
    CREATE TABLE audit_log (
      id text NOT NULL,
      ts bigint NOT NULL,
      -- Order of entries with equal start times (the list's tie-break and a conversation's position).
      seq bigint NOT NULL DEFAULT nextval('audit_log_seq'),
      duration_ns bigint NOT NULL DEFAULT 0,
      request_id text NOT NULL DEFAULT '',
      requested_model text NOT NULL DEFAULT '',
      resolved_model text NOT NULL DEFAULT '',
      provider text NOT NULL DEFAULT '',
      provider_name text NOT NULL DEFAULT '',
      method text NOT NULL DEFAULT '',
      path text NOT NULL DEFAULT '',
      status_code integer NOT NULL DEFAULT 0,
      stream boolean NOT NULL DEFAULT false,
      error_type text NOT NULL DEFAULT '',
      session_id text NOT NULL DEFAULT '',
      user_path text COLLATE "C" NOT NULL DEFAULT '/',
      principal_id text NOT NULL DEFAULT '',
      auth_key_id text NOT NULL DEFAULT '',
      auth_method text NOT NULL DEFAULT '',
      client_ip text NOT NULL DEFAULT '',
      cache_type text NOT NULL DEFAULT '',
      alias_used boolean NOT NULL DEFAULT false,
      workflow_version_id text NOT NULL DEFAULT '',
      event_type text NOT NULL DEFAULT '',
      response_id text,
      previous_response_id text,
      conversation_payload boolean NOT NULL DEFAULT false,
      data text NOT NULL,
      usage text,
      search tsvector NOT NULL,
      PRIMARY KEY (id, ts)
    ) PARTITION BY RANGE (ts);
    CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT;
    CREATE INDEX audit_log_id ON audit_log (id);
    CREATE INDEX audit_log_ts ON audit_log (ts DESC, seq DESC);
    CREATE INDEX audit_log_model_ts ON audit_log (requested_model, ts DESC);
    CREATE INDEX audit_log_provider_ts ON audit_log (provider, ts DESC);
    CREATE INDEX audit_log_provider_name_ts ON audit_log (provider_name, ts DESC);
    CREATE INDEX audit_log_method_path_ts ON audit_log (method, path, ts DESC);
    CREATE INDEX audit_log_path_ts ON audit_log (path, ts DESC);
    CREATE INDEX audit_log_user_path_ts ON audit_log (user_path, ts DESC);
    CREATE INDEX audit_log_session_ts ON audit_log (session_id, ts DESC);
    CREATE INDEX audit_log_status_ts ON audit_log (status_code, ts DESC);
    CREATE INDEX audit_log_error_type_ts ON audit_log (error_type, ts DESC);
    CREATE INDEX audit_log_stream_ts ON audit_log (stream, ts DESC);
    CREATE INDEX audit_log_request_id ON audit_log (request_id) WHERE request_id <> id;
    CREATE INDEX audit_log_response_id ON audit_log (response_id) WHERE response_id IS NOT NULL;
    CREATE INDEX audit_log_previous_response_id ON audit_log (previous_response_id) WHERE previous_response_id IS NOT NULL;
    CREATE INDEX audit_log_search ON audit_log USING gin (search);

    CREATE TABLE audit_log_payloads (
      id text NOT NULL,
      ts bigint NOT NULL,
      payload text NOT NULL,
      PRIMARY KEY (id, ts)
    ) PARTITION BY RANGE (ts);
    CREATE TABLE audit_log_payloads_default PARTITION OF audit_log_payloads DEFAULT;

    CREATE TABLE audit_log_labels (
      label text NOT NULL,
      ts bigint NOT NULL,
      id text NOT NULL,
      PRIMARY KEY (label, ts, id)
    ) PARTITION BY RANGE (ts);
    CREATE TABLE audit_log_labels_default PARTITION OF audit_log_labels DEFAULT;
  `,
}

export const postgresMigrations: readonly PgMigration[] = [core, auditLog]

/** The tables partitioned by day (partitions.ts creates and drops their partitions together). */
export const PARTITIONED_TABLES = ['audit_log', 'audit_log_payloads', 'audit_log_labels'] as const
