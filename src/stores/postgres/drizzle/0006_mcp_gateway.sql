CREATE TABLE "mcp_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"server" text NOT NULL,
	"owner_kind" text NOT NULL,
	"owner_id" text NOT NULL,
	"user_path" text,
	"sealed" text NOT NULL,
	"scope" text,
	"expires_at" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "mcp_credentials_owner" UNIQUE("server","owner_kind","owner_id"),
	CONSTRAINT "mcp_credentials_owner_kind_check" CHECK ("mcp_credentials"."owner_kind" IN ('key', 'user_path', 'client'))
);
--> statement-breakpoint
CREATE TABLE "mcp_servers" (
	"name" text PRIMARY KEY NOT NULL,
	"sealed_config" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_visibility_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"rule" jsonb NOT NULL,
	"created_at" text NOT NULL
);
