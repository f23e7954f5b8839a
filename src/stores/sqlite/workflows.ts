/**
 * @module Workflow versions in SQLite. Rows are never changed except for the `active` flag: a change to a
 * workflow inserts a new version and deactivates the previous one in the same transaction.
 */
import type { Database } from 'bun:sqlite'
import type { WorkflowVersion } from '../../workflows/definition.ts'
import type { WorkflowStore } from '../types.ts'
import type { Migration } from './client.ts'

export const workflowsMigration: Migration = {
  id: '0006_workflows',
  sql: `CREATE TABLE workflow_versions (
    version_id TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    scope TEXT NOT NULL,
    features TEXT NOT NULL,
    plugins TEXT NOT NULL,
    active INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    UNIQUE (workflow_id, version)
  );
  CREATE INDEX workflow_versions_active ON workflow_versions (active, workflow_id);`,
}

interface Row {
  version_id: string
  workflow_id: string
  version: number
  name: string
  description: string
  scope: string
  features: string
  plugins: string
  active: number
  created_at: string
  created_by: string
}

const toVersion = (r: Row): WorkflowVersion => ({
  id: r.workflow_id,
  versionId: r.version_id,
  version: r.version,
  name: r.name,
  description: r.description,
  scope: JSON.parse(r.scope),
  features: JSON.parse(r.features),
  plugins: JSON.parse(r.plugins),
  active: r.active === 1,
  createdAt: r.created_at,
  createdBy: r.created_by,
})

export function sqliteWorkflowStore(db: Database): WorkflowStore {
  const insert = db.query(
    `INSERT INTO workflow_versions (version_id, workflow_id, version, name, description, scope, features, plugins, active, created_at, created_by)
     VALUES ($version_id, $workflow_id, $version, $name, $description, $scope, $features, $plugins, 1, $created_at, $created_by)`,
  )
  const deactivateAll = db.query('UPDATE workflow_versions SET active = 0 WHERE workflow_id = $id')
  return {
    async listActive() {
      return db.query<Row, []>('SELECT * FROM workflow_versions WHERE active = 1 ORDER BY name').all().map(toVersion)
    },
    async history(id) {
      return db.query<Row, { id: string }>('SELECT * FROM workflow_versions WHERE workflow_id = $id ORDER BY version DESC').all({ id }).map(toVersion)
    },
    async latestByName(name) {
      const row = db.query<Row, { name: string }>('SELECT * FROM workflow_versions WHERE name = $name ORDER BY created_at DESC, version DESC LIMIT 1').get({ name })
      return row ? toVersion(row) : undefined
    },
    async insertVersion(v) {
      db.transaction(() => {
        deactivateAll.run({ id: v.id })
        insert.run({
          version_id: v.versionId,
          workflow_id: v.id,
          version: v.version,
          name: v.name,
          description: v.description,
          scope: JSON.stringify(v.scope),
          features: JSON.stringify(v.features),
          plugins: JSON.stringify(v.plugins),
          created_at: v.createdAt,
          created_by: v.createdBy,
        })
      }).immediate()
    },
    async deactivate(id) {
      return deactivateAll.run({ id }).changes > 0
    },
  }
}
