CREATE TABLE "batch_lines" (
	"batch_id" text NOT NULL,
	"line_index" integer NOT NULL,
	"custom_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"body" jsonb NOT NULL,
	"state" text NOT NULL,
	"target" text,
	"provider_job" text,
	"claimed_by" text,
	"claimed_at" bigint,
	"audit_id" text,
	"result" jsonb,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "batch_lines_pkey" PRIMARY KEY("batch_id","line_index")
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"principal_id" text NOT NULL,
	"auth_method" text NOT NULL,
	"key_id" text,
	"key_hash" text,
	"user_path" text NOT NULL,
	"labels" jsonb NOT NULL,
	"endpoint" text NOT NULL,
	"input_file_id" text NOT NULL,
	"completion_window" text NOT NULL,
	"status" text NOT NULL,
	"output_file_id" text,
	"error_file_id" text,
	"created_at" bigint NOT NULL,
	"in_progress_at" bigint,
	"expires_at" bigint NOT NULL,
	"finalizing_at" bigint,
	"completed_at" bigint,
	"failed_at" bigint,
	"expired_at" bigint,
	"cancelling_at" bigint,
	"cancelled_at" bigint,
	"total" integer NOT NULL,
	"completed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"metadata" jsonb,
	"errors" jsonb,
	"cost_usd" double precision DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "batch_lines_state" ON "batch_lines" USING btree ("batch_id","state","line_index");--> statement-breakpoint
CREATE INDEX "batches_principal_created" ON "batches" USING btree ("principal_id","created_at");--> statement-breakpoint
CREATE INDEX "batches_status" ON "batches" USING btree ("status");