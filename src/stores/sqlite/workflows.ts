/**
 * @module Workflow versions in SQLite. Rows are never changed except for the `active` flag: a change to a
 * workflow inserts a new version and deactivates the previous one in the same transaction.
 */
import type { Database } from 'bun:sqlite'
import { desc, eq } from 'drizzle-orm'
import type { WorkflowFeaturesSnapshot } from '../../pipeline/snapshots.ts'
import type { WorkflowScope, WorkflowVersion } from '../../workflows/definition.ts'
import type { WorkflowStore } from '../types.ts'
import { orm } from './orm.ts'
import { workflowVersions } from './schema.ts'

const toVersion = ({ workflowId, ...r }: typeof workflowVersions.$inferSelect): WorkflowVersion => ({
  ...r,
  id: workflowId,
  scope: r.scope as WorkflowScope,
  features: r.features as WorkflowFeaturesSnapshot,
  plugins: r.plugins as Record<string, unknown>,
})

export function sqliteWorkflowStore(db: Database): WorkflowStore {
  const o = orm(db)
  const deactivateAll = (id: string) =>
    o.update(workflowVersions).set({ active: false }).where(eq(workflowVersions.workflowId, id)).returning({ v: workflowVersions.versionId }).all().length
  return {
    async listActive() {
      return o.select().from(workflowVersions).where(eq(workflowVersions.active, true)).orderBy(workflowVersions.name).all().map(toVersion)
    },
    async history(id) {
      return o.select().from(workflowVersions).where(eq(workflowVersions.workflowId, id)).orderBy(desc(workflowVersions.version)).all().map(toVersion)
    },
    async latestByName(name) {
      const row = o.select().from(workflowVersions).where(eq(workflowVersions.name, name)).orderBy(desc(workflowVersions.createdAt), desc(workflowVersions.version)).limit(1).get()
      return row ? toVersion(row) : undefined
    },
    async insertVersion(v) {
      db.transaction(() => {
        deactivateAll(v.id)
        const { id, ...rest } = v
        o.insert(workflowVersions)
          .values({ ...rest, workflowId: id, active: true })
          .run()
      }).immediate()
    },
    async deactivate(id) {
      return deactivateAll(id) > 0
    },
  }
}
