/** @jsxImportSource preact */
/**
 * @module A workflow's settings for one plugin, as a form built from the plugin's config JSON Schema
 * (GET /admin/plugins): a select for enums, a switch for booleans, number and text inputs, and JSON for
 * lists and objects. A field left empty is not sent, so the plugin's default applies.
 */
import { useState } from 'preact/hooks'
import type { PluginInfo, SettingSchema } from '../api/schemas.ts'

type Settings = Record<string, unknown>

export function PluginSettingsFields({
  plugin,
  settings,
  onChange,
  onValidity,
}: {
  plugin: PluginInfo
  settings: Settings
  onChange: (settings: Settings) => void
  onValidity: (field: string, valid: boolean) => void
}) {
  const properties = Object.entries(plugin.config_schema.properties)
  const set = (name: string, value: unknown) => {
    const next = { ...settings }
    if (value === undefined) delete next[name]
    else next[name] = value
    onChange(next)
  }
  return (
    <details class="plugin-settings">
      <summary>
        <code>{plugin.id}</code> {Object.keys(settings).length > 0 && <span class="badge">configured</span>} <small class="muted">{plugin.summary}</small>
      </summary>
      <div class="settings-grid">
        {properties.map(([name, schema]) => (
          <SettingField
            key={name}
            id={`${plugin.id}.${name}`}
            name={name}
            schema={schema}
            value={settings[name]}
            onChange={(value) => set(name, value)}
            onValidity={(valid) => onValidity(`${plugin.id}.${name}`, valid)}
          />
        ))}
      </div>
    </details>
  )
}

const typeOf = (schema: SettingSchema) => (Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type)
const defaultLabel = (schema: SettingSchema) => (schema.default === undefined ? '' : `default: ${JSON.stringify(schema.default)}`)

interface FieldProps {
  id: string
  name: string
  schema: SettingSchema
  value: unknown
  onChange: (value: unknown) => void
  onValidity: (valid: boolean) => void
}

function SettingField({ id, name, schema, value, onChange, onValidity }: FieldProps) {
  const type = typeOf(schema)
  if (schema.enum)
    return (
      <label>
        {name}
        <select value={value === undefined ? '' : JSON.stringify(value)} onChange={(e) => onChange(e.currentTarget.value ? JSON.parse(e.currentTarget.value) : undefined)}>
          <option value="">{defaultLabel(schema) || 'not set'}</option>
          {schema.enum.map((option) => (
            <option key={String(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      </label>
    )
  if (type === 'boolean')
    return (
      <label class="inline">
        <input type="checkbox" role="switch" checked={Boolean(value ?? schema.default)} onChange={(e) => onChange(e.currentTarget.checked)} />
        {name}
      </label>
    )
  if (type === 'integer' || type === 'number')
    return (
      <label>
        {name}
        <input
          type="number"
          step={type === 'integer' ? 1 : 'any'}
          min={schema.minimum}
          max={schema.maximum}
          placeholder={defaultLabel(schema)}
          value={typeof value === 'number' ? value : ''}
          onInput={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.valueAsNumber)}
        />
      </label>
    )
  if (type === 'string')
    return (
      <label class={(schema.maxLength ?? 0) > 200 ? 'wide' : undefined}>
        {name}
        {(schema.maxLength ?? 0) > 200 ? (
          <textarea rows={3} placeholder={defaultLabel(schema)} value={typeof value === 'string' ? value : ''} onInput={(e) => onChange(e.currentTarget.value || undefined)} />
        ) : (
          <input placeholder={defaultLabel(schema)} value={typeof value === 'string' ? value : ''} onInput={(e) => onChange(e.currentTarget.value || undefined)} />
        )}
      </label>
    )
  return <JsonField id={id} name={name} schema={schema} value={value} onChange={onChange} onValidity={onValidity} />
}

function JsonField({ id, name, schema, value, onChange, onValidity }: FieldProps) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2))
  const [problem, setProblem] = useState<string>()
  function edit(next: string) {
    setText(next)
    if (!next.trim()) return report(undefined, undefined)
    try {
      report(JSON.parse(next), undefined)
    } catch (error) {
      report(value, `Not valid JSON: ${(error as Error).message}`)
    }
  }
  function report(next: unknown, failure: string | undefined) {
    setProblem(failure)
    onValidity(failure === undefined)
    if (failure === undefined) onChange(next)
  }
  return (
    <label class="wide">
      {name} <small class="muted">(JSON)</small>
      <textarea
        rows={4}
        class="code"
        placeholder={defaultLabel(schema)}
        value={text}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onInput={(e) => edit(e.currentTarget.value)}
      />
      {problem && (
        <small id={`${id}-problem`} role="alert" class="field-error">
          {problem}
        </small>
      )}
    </label>
  )
}
