CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`user_path` text NOT NULL,
	`purpose` text NOT NULL,
	`filename` text NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `files_owner` ON `files` (`owner`,`id`);--> statement-breakpoint
CREATE INDEX `files_expires_at` ON `files` (`expires_at`);--> statement-breakpoint
CREATE INDEX `files_user_path` ON `files` (`user_path`,`id`);