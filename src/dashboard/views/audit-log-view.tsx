/** @jsxImportSource preact */
/** @module Audit Logs: filters, newest first, paging, live refresh; a row (click or Enter) opens the entry. */
import { useEffect } from 'preact/hooks'
import { useAdmin } from '../api/admin-context.ts'
import { auditLogPageSchema, type AuditLogEntry } from '../api/schemas.ts'
import { ColumnHeads } from '../components/column-heads.tsx'
import { Pager } from '../components/pager.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { LabelChips } from '../components/label-chips.tsx'
import { formatCount, formatDateTime, formatDurationNs } from '../format.ts'
import { hrefOf, navigate } from '../router.ts'
import { AuditFilters, auditParamsOf, type FilterChanges } from './audit-filters.tsx'

const LIVE_INTERVAL_MS = 5000

let lastListHref = hrefOf(['audit'])
/** The list as the user left it (filters, page), for the entry view's way back. */
export const auditListHref = () => lastListHref

export function AuditLogView({ query }: { query: URLSearchParams }) {
  const admin = useAdmin()
  const params = auditParamsOf(query)
  const live = query.get('live') === '1'
  const page = useRemote(() => admin.get('/audit/log', auditLogPageSchema, params), [admin, JSON.stringify(params)])

  useEffect(() => {
    lastListHref = hrefOf(['audit'], query)
  }, [query])

  useEffect(() => {
    if (!live) return
    const timer = setInterval(page.reload, LIVE_INTERVAL_MS)
    return () => clearInterval(timer)
  }, [live, page.reload])

  function update(changes: FilterChanges, keepOffset = false) {
    const next = new URLSearchParams(query)
    for (const [name, value] of Object.entries(changes)) value ? next.set(name, value) : next.delete(name)
    if (!keepOffset) next.delete('offset')
    navigate(hrefOf(['audit'], next), { replace: true })
  }

  return (
    <section aria-labelledby="audit-title">
      <div class="view-header">
        <h1 id="audit-title">Audit Logs</h1>
        <label class="inline">
          <input type="checkbox" role="switch" checked={live} onChange={(event) => update({ live: event.currentTarget.checked ? '1' : undefined }, true)} />
          Live (refresh every 5 s)
        </label>
      </div>
      <AuditFilters query={query} onChange={update} />
      <Loadable remote={page} label="Loading audit entries…">
        {(result) =>
          result.entries.length === 0 ? (
            <EmptyState>No audit entries match. Widen the date range or clear filters.</EmptyState>
          ) : (
            <div aria-busy={page.loading}>
              <AuditTable entries={result.entries} />
              <Pager
                offset={result.offset}
                limit={result.limit}
                total={result.total}
                atLeast={result.total_relation === 'gte'}
                onOffset={(offset) => update({ offset: String(offset) }, true)}
              />
            </div>
          )
        }
      </Loadable>
    </section>
  )
}

function AuditTable({ entries }: { entries: AuditLogEntry[] }) {
  const open = (entry: AuditLogEntry) => navigate(hrefOf(['audit', entry.id]))
  return (
    <div class="table-scroll">
      <table class="striped audit-table">
        <ColumnHeads names={['Time', 'Status', 'Request', 'Model', 'Provider', 'Duration', 'Tokens', 'User path']} />
        <tbody>
          {entries.map((entry) => (
            <tr
              key={entry.id}
              class="clickable"
              tabIndex={0}
              aria-label={`${entry.method} ${entry.path}, status ${entry.status_code}, ${formatDateTime(entry.timestamp)}: open details`}
              onClick={() => open(entry)}
              onKeyDown={(event) => event.key === 'Enter' && open(entry)}
            >
              <td class="nowrap">{formatDateTime(entry.timestamp)}</td>
              <td>
                <StatusBadge status={entry.status_code} />
              </td>
              <td>
                <code>{entry.method}</code> {entry.path}
                {entry.stream && <span class="badge">stream</span>}
                {entry.data.labels && entry.data.labels.length > 0 && (
                  <small class="block">
                    <LabelChips labels={entry.data.labels} />
                  </small>
                )}
                {(entry.data.error_message || entry.data.event_type) && <small class="muted block truncate">{entry.data.event_type ?? entry.data.error_message}</small>}
              </td>
              <td>{entry.requested_model || <span class="muted">–</span>}</td>
              <td>{entry.provider_name || <span class="muted">–</span>}</td>
              <td class="nowrap">{formatDurationNs(entry.duration_ns)}</td>
              <td>{entry.usage ? formatCount(entry.usage.total_tokens) : <span class="muted">–</span>}</td>
              <td>{entry.user_path}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function StatusBadge({ status }: { status: number }) {
  const kind = status >= 500 ? 'error' : status >= 400 ? 'warn' : status >= 200 && status < 300 ? 'ok' : 'other'
  return <span class={`badge badge-${kind}`}>{status}</span>
}
