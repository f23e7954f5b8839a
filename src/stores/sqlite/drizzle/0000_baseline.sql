CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`key_hash` text NOT NULL UNIQUE,
	`redacted_key` text NOT NULL,
	`user_path` text,
	`allowed_models` text,
	`dashboard_enabled` integer DEFAULT false NOT NULL,
	`expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`revoked_at` text,
	`created_by` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `api_keys_created_at` ON `api_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL UNIQUE,
	`ts` integer NOT NULL,
	`duration_ns` integer DEFAULT 0 NOT NULL,
	`request_id` text DEFAULT '' NOT NULL,
	`requested_model` text DEFAULT '' NOT NULL,
	`resolved_model` text DEFAULT '' NOT NULL,
	`provider` text DEFAULT '' NOT NULL,
	`provider_name` text DEFAULT '' NOT NULL,
	`method` text DEFAULT '' NOT NULL,
	`path` text DEFAULT '' NOT NULL,
	`status_code` integer DEFAULT 0 NOT NULL,
	`stream` integer DEFAULT 0 NOT NULL,
	`error_type` text DEFAULT '' NOT NULL,
	`session_id` text DEFAULT '' NOT NULL,
	`user_path` text DEFAULT '/' NOT NULL,
	`principal_id` text DEFAULT '' NOT NULL,
	`auth_key_id` text DEFAULT '' NOT NULL,
	`auth_method` text DEFAULT '' NOT NULL,
	`client_ip` text DEFAULT '' NOT NULL,
	`cache_type` text DEFAULT '' NOT NULL,
	`alias_used` integer DEFAULT 0 NOT NULL,
	`workflow_version_id` text DEFAULT '' NOT NULL,
	`event_type` text DEFAULT '' NOT NULL,
	`response_id` text,
	`previous_response_id` text,
	`conversation_payload` integer DEFAULT 0 NOT NULL,
	`data` text NOT NULL,
	`usage` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_ts` ON `audit_log` (`ts`,`status_code`,`duration_ns`,`event_type`,`stream`,`method`,`path`,`provider`,`provider_name`);--> statement-breakpoint
CREATE INDEX `audit_log_model_ts` ON `audit_log` (`requested_model`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_provider_ts` ON `audit_log` (`provider`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_provider_name_ts` ON `audit_log` (`provider_name`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_user_path_ts` ON `audit_log` (`user_path`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_session_ts` ON `audit_log` (`session_id`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_status_ts` ON `audit_log` (`status_code`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_error_type_ts` ON `audit_log` (`error_type`,`ts`);--> statement-breakpoint
CREATE INDEX `audit_log_request_id` ON `audit_log` (`request_id`) WHERE request_id <> id;--> statement-breakpoint
CREATE INDEX `audit_log_response_id` ON `audit_log` (`response_id`) WHERE response_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `audit_log_previous_response_id` ON `audit_log` (`previous_response_id`) WHERE previous_response_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `audit_log_labels` (
	`label` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`label`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `audit_log_labels_seq` ON `audit_log_labels` (`seq`);--> statement-breakpoint
CREATE TABLE `audit_log_payloads` (
	`seq` integer PRIMARY KEY NOT NULL,
	`payload` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `limit_definitions` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`definition` text NOT NULL,
	`created_at` text NOT NULL,
	CONSTRAINT "limit_definitions_kind" CHECK("limit_definitions"."kind" IN ('budget', 'rate_limit'))
);
--> statement-breakpoint
CREATE TABLE `price_overrides` (
	`model` text PRIMARY KEY NOT NULL,
	`price` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `response_threads` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` text NOT NULL,
	`provider_name` text NOT NULL,
	`native` integer NOT NULL,
	`items` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `response_threads_created_at` ON `response_threads` (`created_at`);--> statement-breakpoint
CREATE TABLE `usage_records` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`key_id` text NOT NULL,
	`user_path` text NOT NULL,
	`provider_name` text NOT NULL,
	`provider_type` text NOT NULL,
	`model` text NOT NULL,
	`requested_model` text NOT NULL,
	`prompt_tokens` integer NOT NULL,
	`completion_tokens` integer NOT NULL,
	`total_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`cache_write_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`cost_usd` real NOT NULL,
	`saved_usd` real NOT NULL,
	`rewrite_tokens_saved` integer NOT NULL,
	`rewrite_cost_saved` real NOT NULL,
	`priced` integer NOT NULL,
	`estimated` integer NOT NULL,
	`cache_hit` integer NOT NULL,
	`labels` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `usage_records_ts` ON `usage_records` (`ts`);--> statement-breakpoint
CREATE TABLE `workflow_versions` (
	`version_id` text PRIMARY KEY NOT NULL,
	`workflow_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`scope` text NOT NULL,
	`features` text NOT NULL,
	`plugins` text NOT NULL,
	`active` integer NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text NOT NULL,
	UNIQUE(`workflow_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `workflow_versions_active` ON `workflow_versions` (`active`,`workflow_id`);--> statement-breakpoint
-- Added by hand (drizzle cannot declare these): the audit search index, the cleanup triggers and planner statistics.
CREATE VIRTUAL TABLE `audit_log_search` USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `audit_log_cleanup` AFTER DELETE ON `audit_log` BEGIN
  DELETE FROM audit_log_payloads WHERE seq = old.seq;
  DELETE FROM audit_log_search WHERE rowid = old.seq;
END;--> statement-breakpoint
CREATE TRIGGER `audit_log_labels_cleanup` AFTER DELETE ON `audit_log` BEGIN
  DELETE FROM audit_log_labels WHERE seq = old.seq;
END;--> statement-breakpoint
-- Planner statistics for a typical large log (see NOMINAL_STATISTICS in legacy-migrations.ts): they only rank the indexes.
ANALYZE audit_log;--> statement-breakpoint
DELETE FROM sqlite_stat1 WHERE tbl = 'audit_log';--> statement-breakpoint
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
  ('audit_log', 'audit_log_previous_response_id', '1000 1');--> statement-breakpoint
ANALYZE sqlite_schema;
