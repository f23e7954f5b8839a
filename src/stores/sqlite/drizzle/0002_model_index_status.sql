DROP INDEX `audit_log_model_ts`;--> statement-breakpoint
CREATE INDEX `audit_log_model_ts` ON `audit_log` (`requested_model`,`ts`,`status_code`);--> statement-breakpoint
-- Added by hand: the index's nominal planner statistics (see 0000), now with the status code's column.
UPDATE sqlite_stat1 SET stat = '1000000 50000 2 2' WHERE tbl = 'audit_log' AND idx = 'audit_log_model_ts';--> statement-breakpoint
ANALYZE sqlite_schema;
