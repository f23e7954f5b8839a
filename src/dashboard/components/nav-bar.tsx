/** @jsxImportSource preact */
/** @module The top bar: the views, who is signed in (role and scope), sign-out. Below 768 px the links fold behind a Menu button. */
import { useState } from 'preact/hooks'
import type { Principal } from '../api/schemas.ts'

export const VIEWS = [
  { id: 'keys', label: 'API Keys' },
  { id: 'audit', label: 'Audit Logs' },
  { id: 'usage', label: 'Usage' },
  { id: 'workflows', label: 'Workflows' },
  { id: 'mcp', label: 'MCP' },
  { id: 'batches', label: 'Batches' },
  { id: 'files', label: 'Files' },
] as const
export type ViewId = (typeof VIEWS)[number]['id']

export function NavBar({ current, principal, onSignOut }: { current: ViewId; principal: Principal; onSignOut: () => void }) {
  const [open, setOpen] = useState(false)
  const who = principal.auth_method === 'master_key' ? 'master key' : `key ${principal.key_id ?? principal.principal_id}`
  return (
    <header class="app-header">
      <nav class="container-fluid" aria-label="Main">
        <ul>
          <li>
            <a href="#/audit" class="brand">
              AI Gateway
            </a>
          </li>
        </ul>
        <button type="button" class="nav-toggle secondary outline" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <ul id="main-nav" class={open ? 'open' : undefined}>
          {VIEWS.map((view) => (
            <li key={view.id}>
              <a href={`#/${view.id}`} aria-current={view.id === current ? 'page' : undefined} onClick={() => setOpen(false)}>
                {view.label}
              </a>
            </li>
          ))}
          <li class="who" title={principal.principal_id}>
            Signed in with the {who}
            <small class="block muted">{roleLabel(principal)}</small>
          </li>
          <li>
            <button type="button" class="secondary outline compact" onClick={onSignOut}>
              Sign out
            </button>
          </li>
        </ul>
      </nav>
    </header>
  )
}

/** e.g. "key manager of /acme/team-a", "admin of everything". */
export function roleLabel(principal: Pick<Principal, 'role' | 'scope'>): string {
  return `${principal.role.replace('_', ' ')} of ${principal.scope ?? 'everything'}`
}
