/**
 * @module The PostgreSQL migrations: drizzle-kit's, generated from schema.ts into ./drizzle (plus the custom
 * audit-log migration), embedded in the binary; applyPgMigrations (client.ts) applies them at start-up.
 */
import { type EmbeddedMigration, embeddedMigrations } from '../embedded-migrations.ts'
import { migrationFiles, migrationJournal } from './drizzle/index.ts'

export type PgMigration = EmbeddedMigration

export const postgresMigrations: readonly PgMigration[] = embeddedMigrations(migrationJournal, migrationFiles, 'src/stores/postgres/drizzle/index.ts')

/** The hand-written migrations of the releases before drizzle-kit, and the drizzle-kit migration each equals. */
export const BEFORE_DRIZZLE_KIT: Readonly<Record<string, string>> = { '0001_core': '0000_baseline', '0002_audit_log': '0001_audit_log' }

/** The tables partitioned by time (partitions.ts creates and drops their partitions together; 0001_audit_log.sql). */
export const PARTITIONED_TABLES = ['audit_log', 'audit_log_payloads', 'audit_log_labels'] as const
