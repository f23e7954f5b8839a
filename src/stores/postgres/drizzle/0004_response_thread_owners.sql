ALTER TABLE "response_threads" ADD COLUMN "principal_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "response_threads" ADD COLUMN "user_path" text DEFAULT '' NOT NULL;