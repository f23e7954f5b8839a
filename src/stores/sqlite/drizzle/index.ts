/**
 * @module The drizzle-kit migrations, embedded: the journal and each SQL file imported as text, so the compiled
 * binary carries them and needs no files beside it. A new migration from `bun run db:generate` gets one import
 * line here (migrate.test.ts fails when the journal names a file this list lacks).
 */
import baseline from './0000_baseline.sql' with { type: 'text' }
import leanAuditIndexes from './0001_lean_audit_indexes.sql' with { type: 'text' }
import modelIndexStatus from './0002_model_index_status.sql' with { type: 'text' }
import responseThreadOwners from './0003_response_thread_owners.sql' with { type: 'text' }
import adminRoles from './0004_admin_roles.sql' with { type: 'text' }
import mcpGateway from './0005_mcp_gateway.sql' with { type: 'text' }
import storedResponses from './0006_stored_responses.sql' with { type: 'text' }
import usageUnits from './0007_usage_units.sql' with { type: 'text' }
import files from './0008_files.sql' with { type: 'text' }
import batches from './0009_batches.sql' with { type: 'text' }
import uploads from './0010_uploads.sql' with { type: 'text' }
import batchBudgets from './0011_batch_budgets.sql' with { type: 'text' }
import batchOutputExpiry from './0012_batch_output_expiry.sql' with { type: 'text' }
import ftsAutomerge from './0013_fts_automerge.sql' with { type: 'text' }
import journal from './meta/_journal.json'

export const migrationJournal: { entries: readonly { tag: string; when: number; breakpoints: boolean }[] } = journal

export const migrationFiles: Readonly<Record<string, string>> = {
  '0000_baseline': baseline,
  '0001_lean_audit_indexes': leanAuditIndexes,
  '0002_model_index_status': modelIndexStatus,
  '0003_response_thread_owners': responseThreadOwners,
  '0004_admin_roles': adminRoles,
  '0005_mcp_gateway': mcpGateway,
  '0006_stored_responses': storedResponses,
  '0007_usage_units': usageUnits,
  '0008_files': files,
  '0009_batches': batches,
  '0010_uploads': uploads,
  '0011_batch_budgets': batchBudgets,
  '0012_batch_output_expiry': batchOutputExpiry,
  '0013_fts_automerge': ftsAutomerge,
}
