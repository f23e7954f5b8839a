ALTER TABLE `response_threads` ADD `principal_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `response_threads` ADD `user_path` text DEFAULT '' NOT NULL;