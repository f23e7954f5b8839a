-- The audit log: written by hand because drizzle-kit cannot declare it (drizzle-kit generate --custom keeps
-- the journal its own). Three tables partitioned by day on `ts` (epoch ms): the light rows lists read, the heavy
-- payloads (bodies) only the detail view reads, and the labels. Retention drops whole partitions; a DEFAULT
-- partition catches rows outside the partitions made so far (a replay of old spilled entries), so an insert never
-- fails for want of one. Partitions are created ahead of time by src/stores/postgres/partitions.ts. The search
-- column is a tsvector with a GIN index. Never edit this file once released: add a migration.
CREATE SEQUENCE audit_log_seq;
--> statement-breakpoint
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
--> statement-breakpoint
CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT;
--> statement-breakpoint
CREATE INDEX audit_log_id ON audit_log (id);
--> statement-breakpoint
CREATE INDEX audit_log_ts ON audit_log (ts DESC, seq DESC);
--> statement-breakpoint
CREATE INDEX audit_log_model_ts ON audit_log (requested_model, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_provider_ts ON audit_log (provider, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_provider_name_ts ON audit_log (provider_name, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_method_path_ts ON audit_log (method, path, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_path_ts ON audit_log (path, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_user_path_ts ON audit_log (user_path, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_session_ts ON audit_log (session_id, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_status_ts ON audit_log (status_code, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_error_type_ts ON audit_log (error_type, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_stream_ts ON audit_log (stream, ts DESC);
--> statement-breakpoint
CREATE INDEX audit_log_request_id ON audit_log (request_id) WHERE request_id <> id;
--> statement-breakpoint
CREATE INDEX audit_log_response_id ON audit_log (response_id) WHERE response_id IS NOT NULL;
--> statement-breakpoint
CREATE INDEX audit_log_previous_response_id ON audit_log (previous_response_id) WHERE previous_response_id IS NOT NULL;
--> statement-breakpoint
CREATE INDEX audit_log_search ON audit_log USING gin (search);
--> statement-breakpoint
CREATE TABLE audit_log_payloads (
  id text NOT NULL,
  ts bigint NOT NULL,
  payload text NOT NULL,
  PRIMARY KEY (id, ts)
) PARTITION BY RANGE (ts);
--> statement-breakpoint
CREATE TABLE audit_log_payloads_default PARTITION OF audit_log_payloads DEFAULT;
--> statement-breakpoint
CREATE TABLE audit_log_labels (
  label text NOT NULL,
  ts bigint NOT NULL,
  id text NOT NULL,
  PRIMARY KEY (label, ts, id)
) PARTITION BY RANGE (ts);
--> statement-breakpoint
CREATE TABLE audit_log_labels_default PARTITION OF audit_log_labels DEFAULT;
