/** @jsxImportSource preact */
/**
 * @module MCP: the upstream servers with their health, each server's tools and who may see them, the recent tool
 * calls (audit entries of `provider=mcp`, opening in the Audit Logs view), and callers' upstream credentials with a
 * revoke button for those who may revoke them. Secrets are never on this page: the API shows none.
 */
import { useState } from 'preact/hooks'
import { z } from 'zod'
import { useAdmin, useCan } from '../api/admin-context.ts'
import { auditLogPageSchema, mcpCredentialSchema, mcpServerSchema, type McpServer } from '../api/schemas.ts'
import { ColumnHeads } from '../components/column-heads.tsx'
import { ConfirmDialog } from '../components/confirm-dialog.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatDateTime, formatDurationNs } from '../format.ts'
import { hrefOf, navigate } from '../router.ts'
import { StatusBadge } from './audit-log-view.tsx'

const serverList = z.object({ data: z.array(mcpServerSchema) })
const credentialList = z.object({ data: z.array(mcpCredentialSchema) })
type Credential = z.infer<typeof mcpCredentialSchema>

export function McpView({ server }: { server?: string }) {
  return (
    <section aria-labelledby="mcp-title">
      <div class="view-header">
        <h1 id="mcp-title">MCP servers</h1>
      </div>
      <p class="muted">
        Clients connect to <code>/mcp</code> (every server they may use, tools named <code>server__tool</code>) or <code>/mcp/&lt;server&gt;</code> with a gateway key.
      </p>
      <Servers open={server} />
      {server && <ServerTools name={server} />}
      <RecentCalls server={server} />
      <Credentials />
    </section>
  )
}

function stateClass(state: string): string {
  if (state === 'ready' || state === 'per_user') return 'ok'
  if (state === 'connecting') return 'other'
  return 'error'
}

function Servers({ open }: { open?: string }) {
  const admin = useAdmin()
  const servers = useRemote(() => admin.get('/mcp/servers', serverList), [admin])
  return (
    <Loadable remote={servers} label="Loading MCP servers…">
      {(list) =>
        list.data.length === 0 ? (
          <EmptyState>No MCP server is configured (YAML mcp.servers, or POST /admin/mcp/servers).</EmptyState>
        ) : (
          <div class="table-scroll">
            <table class="striped" aria-label="MCP servers">
              <ColumnHeads names={['Server', 'Health', 'Reached by', 'Tools', 'Prompts', 'Resources', 'Source']} />
              <tbody>
                {list.data.map((s) => (
                  <tr
                    key={s.name}
                    class="clickable"
                    tabIndex={0}
                    aria-current={s.name === open ? 'true' : undefined}
                    aria-label={`${s.name}: ${s.status.state}, open its tools`}
                    onClick={() => navigate(hrefOf(['mcp', s.name]))}
                    onKeyDown={(event) => event.key === 'Enter' && navigate(hrefOf(['mcp', s.name]))}
                  >
                    <td>
                      <strong>{s.name}</strong>
                      {s.description && <small class="muted block">{s.description}</small>}
                    </td>
                    <td>
                      <span class={`badge badge-${stateClass(s.status.state)}`}>{s.status.state}</span>
                      {s.status.last_error && <small class="muted block truncate">{s.status.last_error}</small>}
                    </td>
                    <td>
                      {reachedBy(s)}
                      {s.oauth && <small class="muted block">each caller’s own OAuth token (per {s.oauth.per === 'key' ? 'key' : 'user path'})</small>}
                    </td>
                    <td>{s.counts.tools}</td>
                    <td>{s.counts.prompts}</td>
                    <td>{s.counts.resources}</td>
                    <td>{s.source}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </Loadable>
  )
}

function reachedBy(s: McpServer): string {
  if (s.kind === 'stdio') return `stdio: ${s.command ?? ''}${s.status.pid ? ` (pid ${s.status.pid})` : ''}`
  return `${s.transport ?? 'http'}: ${s.url ?? ''}`
}

function ServerTools({ name }: { name: string }) {
  const admin = useAdmin()
  const server = useRemote(() => admin.get(`/mcp/servers/${encodeURIComponent(name)}`, mcpServerSchema), [admin, name])
  return (
    <article aria-labelledby="mcp-tools-title">
      <header>
        <h2 id="mcp-tools-title">Tools of {name}</h2>
      </header>
      <Loadable remote={server} label="Loading tools…">
        {(s) => (
          <>
            <p class="muted">
              A tool no rule names is <strong>{s.default_tool_visibility}</strong>. Among the rules that apply to a caller, a deny beats an allow.
            </p>
            {s.status.stderr_tail && (
              <details>
                <summary>Last stderr output</summary>
                <pre>{s.status.stderr_tail}</pre>
              </details>
            )}
            <div class="table-scroll">
              <table class="striped" aria-label={`Tools of ${name}`}>
                <ColumnHeads names={['Tool', 'Who may see it']} />
                <tbody>
                  {(s.tools ?? []).map((tool) => (
                    <tr key={tool.name}>
                      <td>
                        <code>{tool.name}</code>
                        {tool.description && <small class="muted block truncate">{tool.description}</small>}
                      </td>
                      <td>
                        {tool.rules.length === 0 ? (
                          <span>{tool.default === 'visible' ? 'everyone' : 'nobody (hidden until a rule allows it)'}</span>
                        ) : (
                          <ul class="plain">
                            {tool.rules.map((r, i) => (
                              <li key={i}>
                                <span class={`badge badge-${r.effect === 'deny' ? 'error' : 'ok'}`}>{r.effect}</span> {who(r.rule)}
                              </li>
                            ))}
                            <li class="muted">others: {tool.default === 'visible' ? 'visible' : 'hidden'}</li>
                          </ul>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Loadable>
    </article>
  )
}

function who(rule: { key_id?: string; user_path?: string; role?: string; name?: string }): string {
  const parts = [rule.key_id && `key ${rule.key_id}`, rule.user_path && `user path ${rule.user_path}`, rule.role && `role ${rule.role}`].filter(Boolean)
  return `${parts.length === 0 ? 'everyone' : parts.join(' and ')}${rule.name ? ` (${rule.name})` : ''}`
}

function RecentCalls({ server }: { server?: string }) {
  const admin = useAdmin()
  const calls = useRemote(() => admin.get('/audit/log', auditLogPageSchema, { provider: server ?? 'mcp', method: 'tools/call', limit: 20 }), [admin, server])
  return (
    <article aria-labelledby="mcp-calls-title">
      <header>
        <h2 id="mcp-calls-title">Recent tool calls{server ? ` to ${server}` : ''}</h2>
      </header>
      <Loadable remote={calls} label="Loading tool calls…">
        {(page) =>
          page.entries.length === 0 ? (
            <EmptyState>No tool call in the last 30 days.</EmptyState>
          ) : (
            <div class="table-scroll">
              <table class="striped" aria-label="Recent tool calls">
                <ColumnHeads names={['Time', 'Status', 'Tool', 'Caller', 'Duration']} />
                <tbody>
                  {page.entries.map((entry) => (
                    <tr
                      key={entry.id}
                      class="clickable"
                      tabIndex={0}
                      onClick={() => navigate(hrefOf(['audit', entry.id]))}
                      onKeyDown={(event) => event.key === 'Enter' && navigate(hrefOf(['audit', entry.id]))}
                    >
                      <td class="nowrap">{formatDateTime(entry.timestamp)}</td>
                      <td>
                        <StatusBadge status={entry.status_code} />
                        {entry.data.mcp?.is_error && <span class="badge badge-warn">tool error</span>}
                      </td>
                      <td>
                        <code>{entry.requested_model}</code>
                        {entry.data.error_message && <small class="muted block truncate">{entry.data.error_message}</small>}
                      </td>
                      <td>
                        {entry.auth_key_id || entry.principal_id} <small class="muted">{entry.user_path}</small>
                      </td>
                      <td class="nowrap">{formatDurationNs(entry.duration_ns)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loadable>
    </article>
  )
}

function Credentials() {
  const admin = useAdmin()
  const canRevoke = useCan('mcp.credentials.revoke')
  const credentials = useRemote(() => admin.get('/mcp/credentials', credentialList), [admin])
  const [revoking, setRevoking] = useState<Credential>()
  return (
    <article aria-labelledby="mcp-credentials-title">
      <header>
        <h2 id="mcp-credentials-title">Connected accounts</h2>
      </header>
      <p class="muted">Callers’ own tokens at servers that want per-user OAuth, kept encrypted. Revoking one makes its owner connect again.</p>
      <Loadable remote={credentials} label="Loading connected accounts…">
        {(list) =>
          list.data.length === 0 ? (
            <EmptyState>No connected account.</EmptyState>
          ) : (
            <div class="table-scroll">
              <table class="striped" aria-label="Connected accounts">
                <ColumnHeads names={['Server', 'Owner', 'Scope', 'Token expires', 'Connected', '']} />
                <tbody>
                  {list.data.map((c) => (
                    <tr key={c.id}>
                      <td>{c.server}</td>
                      <td>
                        {c.owner_kind === 'key' ? `key ${c.owner_id}` : `user path ${c.owner_id}`} <small class="muted">{c.user_path}</small>
                      </td>
                      <td>{c.scope ?? <span class="muted">–</span>}</td>
                      <td class="nowrap">{c.expires_at ? formatDateTime(c.expires_at) : <span class="muted">–</span>}</td>
                      <td class="nowrap">{formatDateTime(c.created_at)}</td>
                      <td>
                        {canRevoke && (
                          <button type="button" class="secondary outline compact" onClick={() => setRevoking(c)}>
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loadable>
      {revoking && (
        <ConfirmDialog
          title="Revoke connected account?"
          confirmLabel="Revoke"
          onClose={() => setRevoking(undefined)}
          onConfirm={async () => {
            await admin.send('DELETE', `/mcp/credentials/${encodeURIComponent(revoking.id)}`, z.object({ deleted: z.literal(true) }))
            setRevoking(undefined)
            credentials.reload()
          }}
        >
          <p>
            The gateway forgets the {revoking.server} token of {revoking.owner_kind === 'key' ? `key ${revoking.owner_id}` : `user path ${revoking.owner_id}`}: its next call to{' '}
            {revoking.server} asks it to connect again.
          </p>
        </ConfirmDialog>
      )}
    </article>
  )
}
