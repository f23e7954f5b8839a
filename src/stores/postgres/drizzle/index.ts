/**
 * @module The drizzle-kit migrations for PostgreSQL, embedded: the journal and each SQL file imported as text, so
 * the compiled binary carries them and needs no files beside it. A new migration from `bun run db:generate` gets
 * one import line here (test/integration/postgres-migrations.test.ts fails when the journal names a file this
 * list lacks).
 */
import baseline from './0000_baseline.sql' with { type: 'text' }
import auditLog from './0001_audit_log.sql' with { type: 'text' }
import auditListIndexes from './0002_audit_list_indexes.sql' with { type: 'text' }
import auditPartialIndexes from './0003_audit_partial_indexes.sql' with { type: 'text' }
import responseThreadOwners from './0004_response_thread_owners.sql' with { type: 'text' }
import adminRoles from './0005_admin_roles.sql' with { type: 'text' }
import mcpGateway from './0006_mcp_gateway.sql' with { type: 'text' }
import storedResponses from './0007_stored_responses.sql' with { type: 'text' }
import usageUnits from './0008_usage_units.sql' with { type: 'text' }
import files from './0009_files.sql' with { type: 'text' }
import batches from './0010_batches.sql' with { type: 'text' }
import uploads from './0011_uploads.sql' with { type: 'text' }
import batchBudgets from './0012_batch_budgets.sql' with { type: 'text' }
import batchOutputExpiry from './0013_batch_output_expiry.sql' with { type: 'text' }
import journal from './meta/_journal.json'

export const migrationJournal: { entries: readonly { tag: string; when: number; breakpoints: boolean }[] } = journal

export const migrationFiles: Readonly<Record<string, string>> = {
  '0000_baseline': baseline,
  '0001_audit_log': auditLog,
  '0002_audit_list_indexes': auditListIndexes,
  '0003_audit_partial_indexes': auditPartialIndexes,
  '0004_response_thread_owners': responseThreadOwners,
  '0005_admin_roles': adminRoles,
  '0006_mcp_gateway': mcpGateway,
  '0007_stored_responses': storedResponses,
  '0008_usage_units': usageUnits,
  '0009_files': files,
  '0010_batches': batches,
  '0011_uploads': uploads,
  '0012_batch_budgets': batchBudgets,
  '0013_batch_output_expiry': batchOutputExpiry,
}
