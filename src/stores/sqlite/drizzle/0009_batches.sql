CREATE TABLE `batch_lines` (
	`batch_id` text NOT NULL,
	`line_index` integer NOT NULL,
	`custom_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`body` text NOT NULL,
	`state` text NOT NULL,
	`target` text,
	`provider_job` text,
	`claimed_by` text,
	`claimed_at` integer,
	`audit_id` text,
	`result` text,
	`cost_usd` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`batch_id`, `line_index`)
);
--> statement-breakpoint
CREATE INDEX `batch_lines_state` ON `batch_lines` (`batch_id`,`state`,`line_index`);--> statement-breakpoint
CREATE TABLE `batches` (
	`id` text PRIMARY KEY NOT NULL,
	`principal_id` text NOT NULL,
	`auth_method` text NOT NULL,
	`key_id` text,
	`key_hash` text,
	`user_path` text NOT NULL,
	`labels` text NOT NULL,
	`endpoint` text NOT NULL,
	`input_file_id` text NOT NULL,
	`completion_window` text NOT NULL,
	`status` text NOT NULL,
	`output_file_id` text,
	`error_file_id` text,
	`created_at` integer NOT NULL,
	`in_progress_at` integer,
	`expires_at` integer NOT NULL,
	`finalizing_at` integer,
	`completed_at` integer,
	`failed_at` integer,
	`expired_at` integer,
	`cancelling_at` integer,
	`cancelled_at` integer,
	`total` integer NOT NULL,
	`completed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`metadata` text,
	`errors` text,
	`cost_usd` real DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `batches_principal_created` ON `batches` (`principal_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `batches_status` ON `batches` (`status`);