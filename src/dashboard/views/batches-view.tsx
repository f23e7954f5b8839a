/** @jsxImportSource preact */
/**
 * @module Batches: the batches of the signed-in principal's subtree (status, request counts, cost so far, owner),
 * and one batch with its lines' progress, each line linked to its audit entry. Read only: a batch's owner cancels it
 * through /v1/batches.
 */
import { useState } from 'preact/hooks'
import { useAdmin } from '../api/admin-context.ts'
import { adminBatchDetail, adminBatchList, type AdminBatch, type AdminBatchLine } from '../../batches/admin-views.ts'
import { ColumnHeads } from '../components/column-heads.tsx'
import { CursorPager } from '../components/pager.tsx'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatUsd } from '../format.ts'
import { hrefOf } from '../router.ts'

const PAGE_SIZE = 25
const LINES_PAGE = 100

const when = (epochSeconds: number | null | undefined) => (epochSeconds ? new Date(epochSeconds * 1000).toLocaleString() : '')

export function BatchesView({ id }: { id?: string }) {
  return id ? <BatchDetail id={id} /> : <BatchList />
}

function BatchList() {
  const admin = useAdmin()
  // The pages seen so far: `after` is the last id of the page before.
  const [afters, setAfters] = useState<(string | undefined)[]>([undefined])
  const after = afters.at(-1)
  const batches = useRemote(() => admin.get('/batches', adminBatchList, { limit: PAGE_SIZE, after }), [admin, after])
  return (
    <section aria-labelledby="batches-title">
      <div class="view-header">
        <h1 id="batches-title">Batches</h1>
      </div>
      <Loadable remote={batches} label="Loading batches…">
        {(page) =>
          page.data.length === 0 ? (
            <EmptyState>No batches yet. A client makes one with POST /v1/batches from an uploaded JSONL file.</EmptyState>
          ) : (
            <>
              <BatchTable batches={page.data} />
              <CursorPager cursors={afters} onCursors={setAfters} hasMore={page.has_more} lastId={page.data.at(-1)?.id} />
            </>
          )
        }
      </Loadable>
    </section>
  )
}

function StatusBadge({ status }: { status: AdminBatch['status'] }) {
  const tone = status === 'completed' ? 'ok' : status === 'failed' || status === 'expired' ? 'error' : status === 'cancelled' || status === 'cancelling' ? 'warn' : 'label'
  return <span class={`badge badge-${tone}`}>{status.replace('_', ' ')}</span>
}

function BatchTable({ batches }: { batches: AdminBatch[] }) {
  return (
    <div class="table-scroll">
      <table class="striped batches-table">
        <ColumnHeads names={['Batch', 'Status', 'Done / failed / total', 'Cost so far', 'Owner', 'User path', 'Endpoint', 'Created']} />
        <tbody>
          {batches.map((batch) => (
            <tr key={batch.id}>
              <td>
                <a href={hrefOf(['batches', batch.id])}>
                  <code>{batch.id}</code>
                </a>
              </td>
              <td>
                <StatusBadge status={batch.status} />
              </td>
              <td>
                {batch.request_counts.completed} / {batch.request_counts.failed} / {batch.request_counts.total}
              </td>
              <td>{formatUsd(batch.cost_usd)}</td>
              <td>
                <code>{batch.owner}</code>
              </td>
              <td>{batch.user_path}</td>
              <td>
                <code>{batch.endpoint}</code>
              </td>
              <td>{when(batch.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function BatchDetail({ id }: { id: string }) {
  const admin = useAdmin()
  const [from, setFrom] = useState(0)
  const detail = useRemote(() => admin.get(`/batches/${encodeURIComponent(id)}`, adminBatchDetail, { from, limit: LINES_PAGE }), [admin, id, from])
  return (
    <section aria-labelledby="batch-title">
      <p>
        <a href={hrefOf(['batches'])}>← Batches</a>
      </p>
      <Loadable remote={detail} label="Loading the batch…">
        {({ batch, lines, next_from }) => (
          <>
            <div class="view-header">
              <h1 id="batch-title">
                Batch <code>{batch.id}</code>
              </h1>
              <StatusBadge status={batch.status} />
            </div>
            <dl class="facts">
              <dt>Requests</dt>
              <dd>
                {batch.request_counts.completed} completed, {batch.request_counts.failed} failed, of {batch.request_counts.total}
              </dd>
              <dt>Cost so far</dt>
              <dd>{formatUsd(batch.cost_usd)}</dd>
              <dt>Owner</dt>
              <dd>
                <code>{batch.owner}</code> at {batch.user_path}
              </dd>
              <dt>Endpoint</dt>
              <dd>
                <code>{batch.endpoint}</code>
              </dd>
              <dt>Created</dt>
              <dd>{when(batch.created_at)}</dd>
              <dt>Expires</dt>
              <dd>{when(batch.expires_at)}</dd>
              {batch.labels.length > 0 && (
                <>
                  <dt>Labels</dt>
                  <dd>{batch.labels.join(', ')}</dd>
                </>
              )}
              <dt>Audit</dt>
              <dd>
                <a href={hrefOf(['audit'], new URLSearchParams({ label: `batch:${batch.id}` }))}>Every line's audit entry</a>
              </dd>
            </dl>
            {batch.errors && batch.errors.data.length > 0 && (
              <>
                <h2>Input file problems</h2>
                <ul>
                  {batch.errors.data.map((e) => (
                    <li key={`${e.line}-${e.code}`}>
                      {e.line !== null && `Line ${e.line}: `}
                      <code>{e.code}</code> {e.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {lines.length > 0 && <LineTable lines={lines} />}
            <div class="toolbar">
              {from > 0 && (
                <button type="button" class="secondary outline compact" onClick={() => setFrom(Math.max(0, from - LINES_PAGE))}>
                  Previous lines
                </button>
              )}
              {next_from !== null && (
                <button type="button" class="secondary outline compact" onClick={() => setFrom(next_from)}>
                  Next lines
                </button>
              )}
            </div>
          </>
        )}
      </Loadable>
    </section>
  )
}

function LineTable({ lines }: { lines: AdminBatchLine[] }) {
  return (
    <div class="table-scroll">
      <table class="striped batch-lines-table">
        <ColumnHeads names={['#', 'custom_id', 'State', 'Answer', 'Run by', 'Cost', 'Audit entry']} />
        <tbody>
          {lines.map((line) => (
            <tr key={line.index}>
              <td>{line.index + 1}</td>
              <td>
                <code>{line.custom_id}</code>
              </td>
              <td>{line.state}</td>
              <td>
                {line.status_code ?? ''} {line.error_code && <code>{line.error_code}</code>}
              </td>
              <td>{line.target ?? <span class="muted">gateway</span>}</td>
              <td>{formatUsd(line.cost_usd)}</td>
              <td>{line.audit_id ? <a href={hrefOf(['audit', line.audit_id])}>open</a> : <span class="muted">none</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
