/**
 * @module Every SQLite migration, in order. Each store module owns its migrations; list them here.
 */
import { apiKeysMigration } from './api-keys.ts'
import { auditLogLabelsMigration, auditLogMigration } from './audit-log.ts'
import type { Migration } from './client.ts'
import { responseThreadsMigration } from './response-threads.ts'
import { workflowsMigration } from './workflows.ts'
import { limitsMigration } from './limits.ts'
import { usageLabelsMigration, usageMigration } from './usage.ts'

export const sqliteMigrations: readonly Migration[] = [apiKeysMigration, auditLogMigration, responseThreadsMigration, workflowsMigration, limitsMigration, usageMigration, auditLogLabelsMigration, usageLabelsMigration]
