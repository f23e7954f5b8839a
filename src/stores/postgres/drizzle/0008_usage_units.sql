ALTER TABLE "usage_records" ADD COLUMN "unit" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "units" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "unit_variant" text DEFAULT '' NOT NULL;