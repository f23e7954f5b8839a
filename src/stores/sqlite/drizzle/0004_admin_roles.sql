ALTER TABLE `api_keys` ADD `role` text;--> statement-breakpoint
CREATE INDEX `api_keys_created_by` ON `api_keys` (`created_by`);--> statement-breakpoint
-- Added by hand: a dashboard-enabled key was an admin over everything; it keeps the role, now confined to its user
-- path. dashboard_enabled stays for a previous release's replica during a rolling upgrade and means from here on
-- "unscoped admin" (src/stores/legacy-dashboard-flag.ts), so such a replica never grants a scoped key the whole tree.
UPDATE `api_keys` SET `role` = 'admin' WHERE `dashboard_enabled` = 1;--> statement-breakpoint
UPDATE `api_keys` SET `dashboard_enabled` = 0 WHERE `dashboard_enabled` = 1 AND `user_path` IS NOT NULL AND `user_path` <> '/';
