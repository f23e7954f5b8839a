-- The audit list's filter indexes leave out the rows whose value no filter looks for through them: each index entry
-- costs the writer server CPU (about 2 µs an entry and index, bench/postgres-write-cost.ts), and most
-- entries are successful POSTs without an error or a session. What each index now holds:
--   error_type: entries with an error type (a filter always names one);
--   status_code: every status but 200 (status_code=200 is most entries: read down the ts index instead);
--   stream: the streamed entries only, by time (stream=false is read down the ts index);
--   session_id: entries with a session;
--   method: every method but POST, by time (replaces (method, path, ts); method with path is read down either index);
--   user_path: entries below the root (a subtree filter never matches '/');
--   provider type: only where it differs from the provider name; the provider filter is `provider_name = x` or
--   (`provider = x` and the two differ), two disjoint halves.
-- The list statement restates each condition as a literal (src/stores/postgres/audit-log.ts, partialIndexGuards), so
-- the planner can use these indexes in a generic plan too. Builds each index once over the existing partitions.
DROP INDEX IF EXISTS audit_log_error_type_ts;
--> statement-breakpoint
CREATE INDEX audit_log_error_type_ts ON audit_log (error_type, ts DESC) WHERE error_type <> '';
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_status_ts;
--> statement-breakpoint
CREATE INDEX audit_log_status_ts ON audit_log (status_code, ts DESC) WHERE status_code <> 200;
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_stream_ts;
--> statement-breakpoint
CREATE INDEX audit_log_stream_ts ON audit_log (ts DESC) WHERE stream;
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_session_ts;
--> statement-breakpoint
CREATE INDEX audit_log_session_ts ON audit_log (session_id, ts DESC) WHERE session_id <> '';
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_method_path_ts;
--> statement-breakpoint
CREATE INDEX audit_log_method_ts ON audit_log (method, ts DESC) WHERE method <> 'POST';
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_user_path_ts;
--> statement-breakpoint
CREATE INDEX audit_log_user_path_ts ON audit_log (user_path, ts DESC) WHERE user_path <> '/';
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_provider_ts;
--> statement-breakpoint
CREATE INDEX audit_log_provider_ts ON audit_log (provider, ts DESC) WHERE provider <> provider_name;
