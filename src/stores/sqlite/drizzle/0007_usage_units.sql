ALTER TABLE `usage_records` ADD `unit` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_records` ADD `units` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_records` ADD `unit_variant` text DEFAULT '' NOT NULL;