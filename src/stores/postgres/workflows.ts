/**
 * @module Workflow versions in PostgreSQL. Rows are never changed except for the `active` flag: a change to a
 * workflow inserts a new version and deactivates the previous one in the same transaction.
 */
import { and, desc, eq } from 'drizzle-orm'
import type { WorkflowVersion } from '../../workflows/definition.ts'
import type { WorkflowStore } from '../types.ts'
import type { PgDb } from './client.ts'
import { workflowVersions } from './schema.ts'

type Row = typeof workflowVersions.$inferSelect

const toVersion = (r: Row): WorkflowVersion => ({
  id: r.workflowId,
  versionId: r.versionId,
  version: r.version,
  name: r.name,
  description: r.description,
  scope: r.scope as WorkflowVersion['scope'],
  features: r.features as WorkflowVersion['features'],
  plugins: r.plugins as WorkflowVersion['plugins'],
  active: r.active,
  createdAt: r.createdAt,
  createdBy: r.createdBy,
})

export function postgresWorkflowStore(db: PgDb): WorkflowStore {
  return {
    async listActive() {
      return (await db.select().from(workflowVersions).where(eq(workflowVersions.active, true)).orderBy(workflowVersions.name)).map(toVersion)
    },
    async history(id) {
      return (await db.select().from(workflowVersions).where(eq(workflowVersions.workflowId, id)).orderBy(desc(workflowVersions.version))).map(toVersion)
    },
    async latestByName(name) {
      const [row] = await db
        .select()
        .from(workflowVersions)
        .where(eq(workflowVersions.name, name))
        .orderBy(desc(workflowVersions.createdAt), desc(workflowVersions.version))
        .limit(1)
      return row ? toVersion(row) : undefined
    },
    async insertVersion(v) {
      await db.transaction(async (tx) => {
        await tx.update(workflowVersions).set({ active: false }).where(eq(workflowVersions.workflowId, v.id))
        await tx.insert(workflowVersions).values({
          versionId: v.versionId,
          workflowId: v.id,
          version: v.version,
          name: v.name,
          description: v.description,
          scope: v.scope,
          features: v.features,
          plugins: v.plugins,
          active: true,
          createdAt: v.createdAt,
          createdBy: v.createdBy,
        })
      })
    },
    async deactivate(id) {
      const rows = await db
        .update(workflowVersions)
        .set({ active: false })
        .where(and(eq(workflowVersions.workflowId, id), eq(workflowVersions.active, true)))
        .returning({ id: workflowVersions.versionId })
      return rows.length > 0
    },
  }
}
