/** @jsxImportSource preact */
/**
 * @module Create or edit a managed key. An edit sends only the fields that changed. The gateway validates
 * (user path rules, model patterns, future expiry, and that a key gets no more than the signed-in principal has);
 * its 400 or 403 names the field, shown beside it. The role field offers the roles the principal may grant; on
 * the principal's own key only the name and description can change.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { z } from 'zod'
import { ApiError } from '../api/admin-client.ts'
import { useAdmin, usePrincipal } from '../api/admin-context.ts'
import { type AdminRole, apiKeySchema, createdApiKeySchema, type ApiKey } from '../api/schemas.ts'
import { ModalDialog } from '../components/modal-dialog.tsx'
import { ErrorNotice } from '../components/status.tsx'
import { toLocalInput } from '../format.ts'

export type CreatedKey = z.infer<typeof createdApiKeySchema>

interface KeyFields {
  name: string
  description: string
  user_path?: string | null
  allowed_models?: string[] | null
  role?: AdminRole | null
  expires_at?: string | null
}

/** The form's fields; `power` false leaves out what a key cannot change on itself, `roles` false the role. */
function fieldsOf(form: HTMLFormElement, { power, roles }: { power: boolean; roles: boolean }): KeyFields {
  const data = new FormData(form)
  const text = (name: string) => String(data.get(name) ?? '').trim()
  const fields: KeyFields = { name: text('name'), description: text('description') }
  if (!power) return fields
  const models = text('allowed_models')
    .split(/[\s,]+/)
    .filter(Boolean)
  const expiry = text('expires_at')
  fields.user_path = text('user_path') || null
  fields.allowed_models = models.length > 0 ? models : null
  fields.expires_at = expiry ? new Date(expiry).toISOString() : null
  if (roles) fields.role = (text('role') || null) as AdminRole | null
  return fields
}

function changedFields(before: ApiKey, after: KeyFields): Partial<KeyFields> {
  const changed: Partial<KeyFields> = {}
  for (const name of Object.keys(after) as (keyof KeyFields)[]) {
    const same = name === 'expires_at' ? toLocalInput(before.expires_at) === toLocalInput(after.expires_at ?? null) : JSON.stringify(before[name]) === JSON.stringify(after[name])
    if (!same) Object.assign(changed, { [name]: after[name] })
  }
  return changed
}

/** Without `existing` a new key is created, and `onSaved` gets it with its secret. */
type KeyFormDialogProps = { onClose: () => void } & ({ existing?: undefined; onSaved: (key: CreatedKey) => void } | { existing: ApiKey; onSaved: (key: ApiKey) => void })

export function KeyFormDialog(props: KeyFormDialogProps) {
  const { existing, onClose } = props
  const admin = useAdmin()
  const principal = usePrincipal()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  /** A key cannot change its own role, user path, models or expiry (the gateway refuses it). */
  const own = existing !== undefined && existing.id === principal.key_id
  const roles = principal.grantable_roles

  async function submit(event: Event) {
    event.preventDefault()
    const fields = fieldsOf(event.currentTarget as HTMLFormElement, { power: !own, roles: roles.length > 0 })
    setBusy(true)
    setError(undefined)
    try {
      if (!props.existing) props.onSaved(await admin.send('POST', '/keys', createdApiKeySchema, fields))
      else {
        const changes = changedFields(props.existing, fields)
        if (Object.keys(changes).length === 0) onClose()
        else props.onSaved(await admin.send('PATCH', `/keys/${encodeURIComponent(props.existing.id)}`, apiKeySchema, changes))
      }
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError((failure as Error).message, 0))
      setBusy(false)
    }
  }

  const problemFor = (param: string) => (error?.param === param ? error.message : undefined)
  return (
    <ModalDialog title={existing ? `Edit ${existing.name}` : 'Create API Key'} onClose={onClose}>
      <form onSubmit={submit}>
        <Field label="Name" problem={problemFor('name')}>
          <input name="name" required maxLength={200} defaultValue={existing?.name} autofocus />
        </Field>
        <Field label="Description" problem={problemFor('description')}>
          <textarea name="description" rows={2} maxLength={2000} defaultValue={existing?.description} />
        </Field>
        {own && <p class="muted">This is the key you signed in with: its user path, models, expiry and role can be changed only by whoever manages it.</p>}
        <Field
          label="User path"
          hint={`Requests are attributed to this path; clients may narrow it, never leave it. ${principal.scope ? `Inside ${principal.scope}.` : 'Empty: not bound.'}`}
          problem={problemFor('user_path')}
        >
          <input name="user_path" placeholder="/acme/team-a" disabled={own} defaultValue={existing ? (existing.user_path ?? '') : (principal.scope ?? '')} />
        </Field>
        <Field label="Allowed models" hint="Selectors, virtual models or prefixes like openai/*, separated by commas. Empty: every model." problem={problemFor('allowed_models')}>
          <input name="allowed_models" placeholder="fast, openai/gpt-4o-mini" disabled={own} defaultValue={existing?.allowed_models?.join(', ') ?? ''} />
        </Field>
        <Field label="Expires" hint="Your local time. Empty: never." problem={problemFor('expires_at')}>
          <input name="expires_at" type="datetime-local" disabled={own} defaultValue={toLocalInput(existing?.expires_at ?? null)} />
        </Field>
        {roles.length > 0 && (
          <Field
            label="Admin role"
            hint="Dashboard and admin API access, confined to the key's user path (unbound: everything). Viewer reads; auditor also reads bodies and security events; key manager also manages keys without a role; admin does everything."
            problem={problemFor('role')}
          >
            <select name="role" disabled={own} defaultValue={existing?.role ?? ''}>
              <option value="">None: /v1 only</option>
              {roles.map((role) => (
                <option key={role} value={role}>
                  {role.replace('_', ' ')}
                </option>
              ))}
            </select>
          </Field>
        )}
        {error && !error.param && <ErrorNotice error={error} />}
        <footer>
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" aria-busy={busy} disabled={busy}>
            {existing ? 'Save changes' : 'Create key'}
          </button>
        </footer>
      </form>
    </ModalDialog>
  )
}

function Field({ label, hint, problem, children }: { label: string; hint?: string; problem?: string; children: ComponentChildren }) {
  return (
    <label>
      {label}
      {children}
      {problem ? (
        <small role="alert" class="field-error">
          {problem}
        </small>
      ) : (
        hint && <small>{hint}</small>
      )}
    </label>
  )
}
