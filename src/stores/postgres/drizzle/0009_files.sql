CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"user_path" text NOT NULL,
	"purpose" text NOT NULL,
	"filename" text NOT NULL,
	"bytes" bigint NOT NULL,
	"sha256" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);
--> statement-breakpoint
CREATE INDEX "files_owner" ON "files" USING btree ("owner","id");--> statement-breakpoint
CREATE INDEX "files_expires_at" ON "files" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "files_user_path" ON "files" USING btree ("user_path","id");