CREATE TABLE "upload_parts" (
	"id" text PRIMARY KEY NOT NULL,
	"upload_id" text NOT NULL,
	"bytes" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"user_path" text NOT NULL,
	"filename" text NOT NULL,
	"purpose" text NOT NULL,
	"bytes" bigint NOT NULL,
	"mime_type" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"file_expires_after" bigint,
	"status" text NOT NULL,
	"file_id" text
);
--> statement-breakpoint
CREATE INDEX "upload_parts_upload" ON "upload_parts" USING btree ("upload_id");--> statement-breakpoint
CREATE INDEX "uploads_expires_at" ON "uploads" USING btree ("expires_at");