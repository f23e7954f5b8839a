-- The audit list's indexes, reshaped for counting (src/stores/postgres/audit-log.ts listStatement; docs/audit.md):
-- `audit_log_id` goes, the primary key (id, ts) already leads with id; the provider-name index carries the provider
-- type, so the half of the provider filter that matches by name only (`provider_name = x AND provider <> x`) is
-- counted from the index alone. Partitions are now made a week at a time (partitions.ts); existing day partitions
-- stay until retention drops them.
DROP INDEX IF EXISTS audit_log_id;
--> statement-breakpoint
DROP INDEX IF EXISTS audit_log_provider_name_ts;
--> statement-breakpoint
CREATE INDEX audit_log_provider_name_ts ON audit_log (provider_name, ts DESC) INCLUDE (provider);
