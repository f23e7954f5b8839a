/** @jsxImportSource preact */
/**
 * @module Edit a workflow (or write a new one): features, scope, description and plugin settings. Saving POSTs
 * the whole definition; the gateway answers with the new version (or the same one when nothing changed) and
 * applies it to the next request.
 */
import { useState } from 'preact/hooks'
import type { ApiError } from '../api/admin-client.ts'
import { useAdmin, useCan } from '../api/admin-context.ts'
import { FEATURE_IDS, workflowSchema, type FeatureFlags, type PluginInfo, type Workflow, type WorkflowScope } from '../api/schemas.ts'
import { ErrorNotice } from '../components/status.tsx'
import { PluginSettingsFields } from './plugin-settings-fields.tsx'

const SCOPE_FIELDS: { name: keyof WorkflowScope; label: string; placeholder: string }[] = [
  { name: 'user_path', label: 'User path', placeholder: '/acme/team-a' },
  { name: 'model', label: 'Model', placeholder: 'fast or openai/gpt-4o' },
  { name: 'provider', label: 'Provider', placeholder: 'openai' },
  { name: 'key_id', label: 'API key id', placeholder: 'key id' },
]

const NEW_FEATURES: FeatureFlags = { audit: true, budget: false, cache: false, failover: false, guardrails: false, usage: true }

export function WorkflowEditor({ workflow, plugins, onSaved }: { workflow?: Workflow; plugins: PluginInfo[]; onSaved: (saved: Workflow, changed: boolean) => void }) {
  const admin = useAdmin()
  const canWrite = useCan('workflows.write')
  const [name, setName] = useState(workflow?.name ?? '')
  const [description, setDescription] = useState(workflow?.description ?? '')
  const [features, setFeatures] = useState<FeatureFlags>(workflow?.features ?? NEW_FEATURES)
  const [scope, setScope] = useState<WorkflowScope>(workflow?.scope ?? {})
  const [settings, setSettings] = useState<Record<string, unknown>>(workflow?.plugins ?? {})
  const [invalidFields, setInvalidFields] = useState<ReadonlySet<string>>(new Set())
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error>()
  const configurable = plugins.filter((p) => Object.keys(p.config_schema.properties).length > 0)

  async function save(event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const saved = await admin.send('POST', '/workflows', workflowSchema, { name, description, scope, features, plugins: settings })
      onSaved(saved, saved.version !== workflow?.version)
    } catch (failure) {
      setError(failure as ApiError)
    } finally {
      setBusy(false)
    }
  }

  function setPluginSettings(pluginId: string, value: Record<string, unknown>) {
    const next = { ...settings }
    if (Object.keys(value).length === 0) delete next[pluginId]
    else next[pluginId] = value
    setSettings(next)
  }

  function setValidity(field: string, valid: boolean) {
    const next = new Set(invalidFields)
    if (valid) next.delete(field)
    else next.add(field)
    setInvalidFields(next)
  }

  return (
    <form onSubmit={save} class="workflow-editor">
      {/* Read-only for a role that may not change workflows: the controls stay readable, not usable. */}
      <fieldset class="bare" disabled={!canWrite}>
        {!workflow && (
          <label>
            Name
            <input required pattern="[a-z0-9][a-z0-9_\-]{0,63}" placeholder="team-a-strict" value={name} onInput={(e) => setName(e.currentTarget.value)} />
            <small>Lower-case letters, digits, - and _. Saving a name that exists makes a new version of that workflow.</small>
          </label>
        )}
        <fieldset>
          <legend>Features</legend>
          <div class="feature-switches">
            {FEATURE_IDS.map((feature) => (
              <label key={feature} class="inline">
                <input type="checkbox" checked={features[feature]} onChange={(e) => setFeatures({ ...features, [feature]: e.currentTarget.checked })} />
                {feature}
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Description
          <input value={description} maxLength={500} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>Scope {Object.keys(scope).length === 0 && <small class="muted">(empty: every request no other workflow matches)</small>}</legend>
          <div class="settings-grid">
            {SCOPE_FIELDS.map((field) => (
              <label key={field.name}>
                {field.label}
                <input
                  placeholder={field.placeholder}
                  value={scope[field.name] ?? ''}
                  onInput={(e) => {
                    const value = e.currentTarget.value.trim()
                    const { [field.name]: _dropped, ...rest } = scope
                    setScope(value ? { ...rest, [field.name]: value } : rest)
                  }}
                />
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend>Plugin settings</legend>
          {configurable.map((plugin) => (
            <PluginSettingsFields
              key={plugin.id}
              plugin={plugin}
              settings={(settings[plugin.id] as Record<string, unknown> | undefined) ?? {}}
              onChange={(value) => setPluginSettings(plugin.id, value)}
              onValidity={setValidity}
            />
          ))}
        </fieldset>
        {error && <ErrorNotice error={error} />}
      </fieldset>
      {canWrite && (
        <button type="submit" aria-busy={busy} disabled={busy || invalidFields.size > 0}>
          {workflow ? 'Save as new version' : 'Create workflow'}
        </button>
      )}
    </form>
  )
}
