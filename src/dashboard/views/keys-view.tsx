/** @jsxImportSource preact */
/**
 * @module API Keys: search, show revoked, create (the secret shown once), edit, revoke. Creating, editing and
 * revoking are offered only to a principal that may (keys.write; a key with a role only to one that may grant it).
 */
import { useState } from 'preact/hooks'
import { useAdmin, useCan, usePrincipal } from '../api/admin-context.ts'
import { apiKeyPageSchema, apiKeySchema, type ApiKey, type Principal } from '../api/schemas.ts'
import { ConfirmDialog } from '../components/confirm-dialog.tsx'
import { DebouncedInput } from '../components/debounced-input.tsx'
import { ColumnHeads } from '../components/column-heads.tsx'
import { Pager } from '../components/pager.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatDate } from '../format.ts'
import { KeyFormDialog, type CreatedKey } from './key-form-dialog.tsx'
import { KeySecretDialog } from './key-secret-dialog.tsx'

const PAGE_SIZE = 25

type Dialog = { kind: 'create' } | { kind: 'edit'; key: ApiKey } | { kind: 'secret'; key: CreatedKey } | { kind: 'revoke'; key: ApiKey }

export function KeysView() {
  const admin = useAdmin()
  const principal = usePrincipal()
  const canWrite = useCan('keys.write')
  const [search, setSearch] = useState('')
  const [showRevoked, setShowRevoked] = useState(false)
  const [offset, setOffset] = useState(0)
  const [dialog, setDialog] = useState<Dialog>()
  const keys = useRemote(() => admin.get('/keys', apiKeyPageSchema, { search, include_revoked: showRevoked, limit: PAGE_SIZE, offset }), [admin, search, showRevoked, offset])

  /** A changed filter shows its first page. */
  const refilter =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value)
      setOffset(0)
    }

  const closeAndReload = () => {
    setDialog(undefined)
    keys.reload()
  }

  return (
    <section aria-labelledby="keys-title">
      <div class="view-header">
        <h1 id="keys-title">API Keys</h1>
        {canWrite && (
          <button type="button" onClick={() => setDialog({ kind: 'create' })}>
            Create API Key
          </button>
        )}
      </div>
      <div class="toolbar">
        <DebouncedInput label="Search keys by name or description" placeholder="Search name or description" value={search} onCommit={refilter(setSearch)} />
        <label class="inline">
          <input type="checkbox" role="switch" checked={showRevoked} onChange={(event) => refilter(setShowRevoked)(event.currentTarget.checked)} />
          Show revoked
        </label>
      </div>
      <Loadable remote={keys} label="Loading keys…">
        {(page) =>
          page.keys.length === 0 ? (
            <EmptyState>{search ? 'No key matches this search.' : 'No API keys yet. Create one to give a client access to /v1.'}</EmptyState>
          ) : (
            <>
              <KeyTable
                keys={page.keys}
                manages={(key) => canWrite && manages(principal, key)}
                onEdit={(key) => setDialog({ kind: 'edit', key })}
                onRevoke={(key) => setDialog({ kind: 'revoke', key })}
              />
              <Pager offset={page.offset} limit={page.limit} total={page.total} onOffset={setOffset} />
            </>
          )
        }
      </Loadable>
      {dialog?.kind === 'create' && <KeyFormDialog onClose={() => setDialog(undefined)} onSaved={(key) => setDialog({ kind: 'secret', key })} />}
      {dialog?.kind === 'edit' && <KeyFormDialog existing={dialog.key} onClose={() => setDialog(undefined)} onSaved={closeAndReload} />}
      {dialog?.kind === 'secret' && <KeySecretDialog created={dialog.key} onClose={closeAndReload} />}
      {dialog?.kind === 'revoke' && (
        <ConfirmDialog
          title="Revoke API key?"
          confirmLabel="Revoke key"
          onClose={() => setDialog(undefined)}
          onConfirm={async () => {
            await admin.send('POST', `/keys/${encodeURIComponent(dialog.key.id)}/revoke`, apiKeySchema)
            closeAndReload()
          }}
        >
          <p>
            <strong>{dialog.key.name}</strong> (<code>{dialog.key.redacted_key}</code>) stops working at once: its next request gets 401, and so do the keys it created. This cannot
            be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  )
}

/** A key without a role, one whose role the principal may grant, or the principal's own (its name, or revoking it). */
function manages(principal: Principal, key: ApiKey): boolean {
  return key.role === null || principal.grantable_roles.includes(key.role) || key.id === principal.key_id
}

function KeyTable({ keys, manages, onEdit, onRevoke }: { keys: ApiKey[]; manages: (key: ApiKey) => boolean; onEdit: (key: ApiKey) => void; onRevoke: (key: ApiKey) => void }) {
  return (
    <div class="table-scroll">
      <table class="striped keys-table">
        <ColumnHeads names={['Name', 'Key', 'User path', 'Models', 'Role', 'Status', 'Expires', 'Created']}>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </ColumnHeads>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>
                <strong>{key.name}</strong>
                {key.description && <small class="muted block">{key.description}</small>}
              </td>
              <td>
                <code>{key.redacted_key}</code>
              </td>
              <td>{key.user_path ?? <span class="muted">any</span>}</td>
              <td>{key.allowed_models ? key.allowed_models.join(', ') : <span class="muted">all</span>}</td>
              <td>
                {key.role ? key.role.replace('_', ' ') : <span class="muted">none</span>}
                {key.exceeds_creator.length > 0 && (
                  <span class="badge badge-warn block" title={`More than the key that created it has now: ${key.exceeds_creator.join(', ')}`}>
                    exceeds its creator
                  </span>
                )}
              </td>
              <td>
                <span class={`badge badge-${key.status}`}>{key.status}</span>
              </td>
              <td>{key.expires_at ? formatDate(key.expires_at) : <span class="muted">never</span>}</td>
              <td>{formatDate(key.created_at)}</td>
              <td class="actions">
                {key.status !== 'revoked' && manages(key) && (
                  <>
                    <button type="button" class="secondary outline compact" onClick={() => onEdit(key)} aria-label={`Edit ${key.name}`}>
                      Edit
                    </button>
                    <button type="button" class="danger outline compact" onClick={() => onRevoke(key)} aria-label={`Revoke ${key.name}`}>
                      Revoke
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
