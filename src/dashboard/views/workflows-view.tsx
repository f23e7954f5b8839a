/** @jsxImportSource preact */
/**
 * @module Workflows: every active workflow with its editor and version history, and a form for a new one. Every
 * role reads them; only an unscoped admin (workflows.write) gets the editors' save buttons and the new-workflow form.
 */
import { useState } from 'preact/hooks'
import { useAdmin, useCan } from '../api/admin-context.ts'
import { pluginListSchema, workflowHistorySchema, workflowListSchema, type PluginInfo, type Workflow } from '../api/schemas.ts'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatDateTime } from '../format.ts'
import { WorkflowEditor } from './workflow-editor.tsx'

export function WorkflowsView() {
  const admin = useAdmin()
  const canWrite = useCan('workflows.write')
  const workflows = useRemote(() => admin.get('/workflows', workflowListSchema), [admin])
  const plugins = useRemote(() => admin.get('/plugins', pluginListSchema), [admin])
  const [creating, setCreating] = useState(false)
  const [saved, setSaved] = useState<{ id: string; message: string }>()

  function onSaved(workflow: Workflow, changed: boolean) {
    setSaved({ id: workflow.id, message: changed ? `Saved: version ${workflow.version} applies to the next request.` : `Nothing changed: still version ${workflow.version}.` })
    setCreating(false)
    workflows.reload()
  }

  return (
    <section aria-labelledby="workflows-title">
      <div class="view-header">
        <h1 id="workflows-title">Workflows</h1>
        {canWrite && (
          <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
            New workflow
          </button>
        )}
      </div>
      <p class="muted">
        Each request runs under the most specific matching workflow. Every save is a new version; audit entries keep the version they ran under.
        {!canWrite && ' Workflows apply to every tenant: only an admin of everything changes them.'}
      </p>
      <Loadable remote={plugins} label="Loading plugins…">
        {(pluginList) => (
          <>
            {creating && (
              <article>
                <header>
                  <h2>New workflow</h2>
                </header>
                <WorkflowEditor plugins={pluginList.data} onSaved={onSaved} />
              </article>
            )}
            <Loadable remote={workflows} label="Loading workflows…">
              {(list) =>
                list.data.length === 0 ? (
                  <EmptyState>No active workflow.</EmptyState>
                ) : (
                  list.data.map((workflow) => (
                    <WorkflowCard
                      key={`${workflow.id}:${workflow.version}`}
                      workflow={workflow}
                      plugins={pluginList.data}
                      notice={saved?.id === workflow.id ? saved.message : undefined}
                      onSaved={onSaved}
                    />
                  ))
                )
              }
            </Loadable>
          </>
        )}
      </Loadable>
    </section>
  )
}

function WorkflowCard({
  workflow,
  plugins,
  notice,
  onSaved,
}: {
  workflow: Workflow
  plugins: PluginInfo[]
  notice?: string
  onSaved: (saved: Workflow, changed: boolean) => void
}) {
  return (
    <article class="workflow" aria-labelledby={`workflow-${workflow.id}`}>
      <header class="workflow-header">
        <h2 id={`workflow-${workflow.id}`}>{workflow.name}</h2>
        <span class="badge">version {workflow.version}</span>
        <small class="muted">
          {workflow.description} Saved {formatDateTime(workflow.created_at)} by {workflow.created_by}.
        </small>
      </header>
      {notice && (
        <p role="status" class="saved-note">
          {notice}
        </p>
      )}
      <WorkflowEditor workflow={workflow} plugins={plugins} onSaved={onSaved} />
      <VersionHistory workflowId={workflow.id} />
    </article>
  )
}

function VersionHistory({ workflowId }: { workflowId: string }) {
  const [open, setOpen] = useState(false)
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Version history</summary>
      {open && <VersionList workflowId={workflowId} />}
    </details>
  )
}

function VersionList({ workflowId }: { workflowId: string }) {
  const admin = useAdmin()
  const history = useRemote(() => admin.get(`/workflows/${encodeURIComponent(workflowId)}`, workflowHistorySchema), [admin, workflowId])
  return (
    <Loadable remote={history} label="Loading versions…">
      {(result) => (
        <ol class="versions" reversed>
          {result.versions.map((version) => (
            <li key={version.version}>
              <strong>version {version.version}</strong> · {formatDateTime(version.created_at)} by {version.created_by} · features:{' '}
              {Object.entries(version.features)
                .filter(([, on]) => on)
                .map(([feature]) => feature)
                .join(', ') || 'none'}
            </li>
          ))}
        </ol>
      )}
    </Loadable>
  )
}
