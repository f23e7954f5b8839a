ALTER TABLE `batch_lines` ADD `estimate_micro` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `batches` ADD `budget_keys` text;