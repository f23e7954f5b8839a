/** @jsxImportSource preact */
/** @module The upstream calls of one request, in order: failed ones in red, and where failover went. */
import type { AuditLogEntry } from '../api/schemas.ts'
import { JsonBlock } from '../components/json-block.tsx'
import { formatDateTime, formatDurationNs } from '../format.ts'
import { StatusBadge } from './audit-log-view.tsx'
import { HeadersTable } from './headers-table.tsx'

type Attempt = NonNullable<AuditLogEntry['data']['attempts']>[number]

export function AttemptsTimeline({ attempts, failoverTarget }: { attempts: Attempt[]; failoverTarget?: string }) {
  return (
    <>
      {failoverTarget && (
        <p class="failover-note">
          Failed over: answered by <strong>{failoverTarget}</strong>
        </p>
      )}
      <ol class="timeline">
        {attempts.map((attempt) => (
          <li key={attempt.seq} class={attempt.success ? 'attempt' : 'attempt failed'}>
            <div class="attempt-line">
              <strong>
                #{attempt.seq} {attempt.kind}
              </strong>{' '}
              <code>
                {attempt.provider_name}/{attempt.model}
              </code>{' '}
              <StatusBadge status={attempt.status_code} /> {formatDurationNs(attempt.duration_ns)}
              <small class="muted"> at {formatDateTime(attempt.started_at)}</small>
              {!attempt.success && <span class="visually-hidden"> (failed)</span>}
            </div>
            {!attempt.success && (attempt.error_message || attempt.error_code) && (
              <p class="attempt-error">
                {attempt.error_type && <code>{attempt.error_type}</code>} {attempt.error_message} {attempt.error_code && <small>({attempt.error_code})</small>}
              </p>
            )}
            {attempt.response_body !== undefined && <JsonBlock title="Upstream error body" value={attempt.response_body} open={false} />}
            {attempt.response_headers && (
              <details>
                <summary>Upstream response headers</summary>
                <HeadersTable headers={attempt.response_headers} />
              </details>
            )}
          </li>
        ))}
      </ol>
    </>
  )
}
