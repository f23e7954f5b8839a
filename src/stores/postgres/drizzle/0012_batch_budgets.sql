ALTER TABLE "batch_lines" ADD COLUMN "estimate_micro" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "budget_keys" jsonb;