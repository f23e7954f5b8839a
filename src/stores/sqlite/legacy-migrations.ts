/**
 * @module The migrations of databases made before drizzle (releases up to the `schema_migrations` table), frozen.
 * Only used to bring such a database to the drizzle baseline (./drizzle/0000_baseline.sql) before the drizzle
 * migrations take over (migrate.ts), and by the upgrade test as "a database made by the release before". Never
 * edit or add to these: a schema change is a new drizzle migration (docs/migrations.md).
 */
import type { Migration } from './client.ts'

/**
 * Planner statistics for a typical large log (1M entries: ~20 models, a few status codes and providers,
 * hundreds of user paths, sessions of tens of requests). Without statistics SQLite guesses, and picked the
 * status index over the model index for `model + status` (98 ms instead of 16 ms at 1M rows); a real ANALYZE
 * would hold the database for seconds, and `PRAGMA optimize`'s sampled one guessed just as badly. These rows
 * only rank the indexes; a later ANALYZE replaces them with measured ones.
 */
const NOMINAL_STATISTICS = `ANALYZE audit_log;
  DELETE FROM sqlite_stat1 WHERE tbl = 'audit_log';
  INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('audit_log', NULL, '1000000'),
    ('audit_log', 'sqlite_autoindex_audit_log_1', '1000000 1'),
    ('audit_log', 'audit_log_ts', '1000000 2 2 2 2 2 2 2 2 2'),
    ('audit_log', 'audit_log_model_ts', '1000000 50000 2'),
    ('audit_log', 'audit_log_provider_ts', '1000000 150000 2'),
    ('audit_log', 'audit_log_provider_name_ts', '1000000 150000 2'),
    ('audit_log', 'audit_log_user_path_ts', '1000000 5000 2'),
    ('audit_log', 'audit_log_session_ts', '1000000 50 2'),
    ('audit_log', 'audit_log_status_ts', '1000000 150000 2'),
    ('audit_log', 'audit_log_error_type_ts', '1000000 150000 2'),
    ('audit_log', 'audit_log_request_id', '1000000 1'),
    ('audit_log', 'audit_log_response_id', '1000 1'),
    ('audit_log', 'audit_log_previous_response_id', '1000 1');
  ANALYZE sqlite_schema;`

export const apiKeysMigration: Migration = {
  id: '0002_api_keys',
  sql: `
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      key_hash TEXT NOT NULL UNIQUE,
      redacted_key TEXT NOT NULL,
      user_path TEXT,
      allowed_models TEXT,
      dashboard_enabled INTEGER NOT NULL DEFAULT 0,
      expires_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      revoked_at TEXT,
      created_by TEXT NOT NULL
    );
    CREATE INDEX api_keys_created_at ON api_keys (created_at);
  `,
}

export const auditLogMigration: Migration = {
  id: '0003_audit_log',
  sql: `CREATE TABLE audit_log (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    ts INTEGER NOT NULL,
    duration_ns INTEGER NOT NULL DEFAULT 0,
    request_id TEXT NOT NULL DEFAULT '',
    requested_model TEXT NOT NULL DEFAULT '',
    resolved_model TEXT NOT NULL DEFAULT '',
    provider TEXT NOT NULL DEFAULT '',
    provider_name TEXT NOT NULL DEFAULT '',
    method TEXT NOT NULL DEFAULT '',
    path TEXT NOT NULL DEFAULT '',
    status_code INTEGER NOT NULL DEFAULT 0,
    stream INTEGER NOT NULL DEFAULT 0,
    error_type TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    user_path TEXT NOT NULL DEFAULT '/',
    principal_id TEXT NOT NULL DEFAULT '',
    auth_key_id TEXT NOT NULL DEFAULT '',
    auth_method TEXT NOT NULL DEFAULT '',
    client_ip TEXT NOT NULL DEFAULT '',
    cache_type TEXT NOT NULL DEFAULT '',
    alias_used INTEGER NOT NULL DEFAULT 0,
    workflow_version_id TEXT NOT NULL DEFAULT '',
    event_type TEXT NOT NULL DEFAULT '',
    response_id TEXT,
    previous_response_id TEXT,
    conversation_payload INTEGER NOT NULL DEFAULT 0,
    data TEXT NOT NULL,
    usage TEXT
  );
  CREATE TABLE audit_log_payloads (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL);
  CREATE VIRTUAL TABLE audit_log_search USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
  CREATE INDEX audit_log_ts ON audit_log (ts, status_code, duration_ns, event_type, stream, method, path, provider, provider_name);
  CREATE INDEX audit_log_model_ts ON audit_log (requested_model, ts);
  CREATE INDEX audit_log_provider_ts ON audit_log (provider, ts);
  CREATE INDEX audit_log_provider_name_ts ON audit_log (provider_name, ts);
  CREATE INDEX audit_log_user_path_ts ON audit_log (user_path, ts);
  CREATE INDEX audit_log_session_ts ON audit_log (session_id, ts);
  CREATE INDEX audit_log_status_ts ON audit_log (status_code, ts);
  CREATE INDEX audit_log_error_type_ts ON audit_log (error_type, ts);
  CREATE INDEX audit_log_request_id ON audit_log (request_id) WHERE request_id <> id;
  CREATE INDEX audit_log_response_id ON audit_log (response_id) WHERE response_id IS NOT NULL;
  CREATE INDEX audit_log_previous_response_id ON audit_log (previous_response_id) WHERE previous_response_id IS NOT NULL;
  CREATE TRIGGER audit_log_cleanup AFTER DELETE ON audit_log BEGIN
    DELETE FROM audit_log_payloads WHERE seq = old.seq;
    DELETE FROM audit_log_search WHERE rowid = old.seq;
  END;
  ${NOMINAL_STATISTICS}`,
}

export const responseThreadsMigration: Migration = {
  id: '0004_response_threads',
  sql: `CREATE TABLE response_threads (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    native INTEGER NOT NULL,
    items TEXT NOT NULL
  );
  CREATE INDEX response_threads_created_at ON response_threads (created_at);`,
}

export const workflowsMigration: Migration = {
  id: '0006_workflows',
  sql: `CREATE TABLE workflow_versions (
    version_id TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    scope TEXT NOT NULL,
    features TEXT NOT NULL,
    plugins TEXT NOT NULL,
    active INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    UNIQUE (workflow_id, version)
  );
  CREATE INDEX workflow_versions_active ON workflow_versions (active, workflow_id);`,
}

export const limitsMigration: Migration = {
  id: '0007_limits',
  sql: `CREATE TABLE limit_definitions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('budget', 'rate_limit')),
    definition TEXT NOT NULL,
    created_at TEXT NOT NULL
  );`,
}

export const usageMigration: Migration = {
  id: '0008_usage',
  sql: `CREATE TABLE usage_records (
    id TEXT PRIMARY KEY,
    ts INTEGER NOT NULL,
    key_id TEXT NOT NULL,
    user_path TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    provider_type TEXT NOT NULL,
    model TEXT NOT NULL,
    requested_model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    total_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    saved_usd REAL NOT NULL,
    rewrite_tokens_saved INTEGER NOT NULL,
    rewrite_cost_saved REAL NOT NULL,
    priced INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    cache_hit INTEGER NOT NULL
  );
  CREATE INDEX usage_records_ts ON usage_records (ts);
  CREATE TABLE price_overrides (model TEXT PRIMARY KEY, price TEXT NOT NULL, updated_at TEXT NOT NULL);`,
}

/**
 * Labels (LogData.labels) as rows of their own, so `label=` is an index range read: (label, seq) serves the
 * filter newest first within a time window, (seq) the cleanup when entries are deleted.
 */
export const auditLogLabelsMigration: Migration = {
  id: '0009_audit_log_labels',
  sql: `CREATE TABLE audit_log_labels (label TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (label, seq)) WITHOUT ROWID;
  CREATE INDEX audit_log_labels_seq ON audit_log_labels (seq);
  CREATE TRIGGER audit_log_labels_cleanup AFTER DELETE ON audit_log BEGIN
    DELETE FROM audit_log_labels WHERE seq = old.seq;
  END;`,
}

/** A request's labels as a JSON array; `by=label` counts a request once under each of its labels. */
export const usageLabelsMigration: Migration = {
  id: '0010_usage_labels',
  sql: `ALTER TABLE usage_records ADD COLUMN labels TEXT NOT NULL DEFAULT '[]';`,
}

/** In the order they were applied. */
export const legacyMigrations: readonly Migration[] = [
  apiKeysMigration,
  auditLogMigration,
  responseThreadsMigration,
  workflowsMigration,
  limitsMigration,
  usageMigration,
  auditLogLabelsMigration,
  usageLabelsMigration,
]
