CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"key_hash" text NOT NULL,
	"redacted_key" text NOT NULL,
	"user_path" text,
	"allowed_models" jsonb,
	"dashboard_enabled" boolean DEFAULT false NOT NULL,
	"expires_at" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"revoked_at" text,
	"created_by" text NOT NULL,
	CONSTRAINT "api_keys_key_hash_key" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "limit_definitions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "limit_definitions_kind_check" CHECK ("limit_definitions"."kind" IN ('budget', 'rate_limit'))
);
--> statement-breakpoint
CREATE TABLE "price_overrides" (
	"model" text PRIMARY KEY NOT NULL,
	"price" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "response_threads" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" text NOT NULL,
	"provider_name" text NOT NULL,
	"native" boolean NOT NULL,
	"items" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" text PRIMARY KEY NOT NULL,
	"ts" bigint NOT NULL,
	"key_id" text NOT NULL,
	"user_path" text NOT NULL,
	"provider_name" text NOT NULL,
	"provider_type" text NOT NULL,
	"model" text NOT NULL,
	"requested_model" text NOT NULL,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL,
	"total_tokens" integer NOT NULL,
	"cached_tokens" integer NOT NULL,
	"cache_write_tokens" integer NOT NULL,
	"reasoning_tokens" integer NOT NULL,
	"cost_usd" double precision NOT NULL,
	"saved_usd" double precision NOT NULL,
	"rewrite_tokens_saved" integer NOT NULL,
	"rewrite_cost_saved" double precision NOT NULL,
	"priced" boolean NOT NULL,
	"estimated" boolean NOT NULL,
	"cache_hit" boolean NOT NULL,
	"labels" text[] DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_versions" (
	"version_id" text PRIMARY KEY NOT NULL,
	"workflow_id" text NOT NULL,
	"version" integer NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"scope" jsonb NOT NULL,
	"features" jsonb NOT NULL,
	"plugins" jsonb NOT NULL,
	"active" boolean NOT NULL,
	"created_at" text NOT NULL,
	"created_by" text NOT NULL,
	CONSTRAINT "workflow_versions_workflow_id_version_key" UNIQUE("workflow_id","version")
);
--> statement-breakpoint
CREATE INDEX "api_keys_created_at" ON "api_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "response_threads_created_at" ON "response_threads" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "usage_records_ts" ON "usage_records" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "workflow_versions_active" ON "workflow_versions" USING btree ("active","workflow_id");--> statement-breakpoint
CREATE INDEX "workflow_versions_name" ON "workflow_versions" USING btree ("name","created_at");