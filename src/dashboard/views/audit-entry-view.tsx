/** @jsxImportSource preact */
/**
 * @module One audit entry: what was asked and answered (bodies, headers), how (attempts, revisions, workflow
 * features), what it cost; and the Conversation tab with its thread. Security lifecycle entries (sign-ins,
 * admin changes) never carry bodies or headers, so those sections are left out for them; an admin change shows
 * its subject before and after. A viewer's answers carry no bodies or headers: the view says so.
 */
import type { ComponentChildren } from 'preact'
import { useAdmin, useCan } from '../api/admin-context.ts'
import { auditLogEntrySchema, FEATURE_IDS, type AuditLogEntry } from '../api/schemas.ts'
import { CopyButton } from '../components/copy-button.tsx'
import { JsonBlock } from '../components/json-block.tsx'
import { LabelChips } from '../components/label-chips.tsx'
import { Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatCount, formatDateTime, formatDurationNs, formatUnits, formatUsd } from '../format.ts'
import { hrefOf } from '../router.ts'
import { AttemptsTimeline } from './audit-attempts.tsx'
import { AnswerImages, BinaryAnswer, UploadParts } from './audit-media.tsx'
import { auditListHref, StatusBadge } from './audit-log-view.tsx'
import { RevisionsList } from './audit-revisions.tsx'
import { ConversationView } from './conversation-view.tsx'
import { HeadersTable } from './headers-table.tsx'

export function AuditEntryView({ id, tab }: { id: string; tab: 'details' | 'conversation' }) {
  const admin = useAdmin()
  const entry = useRemote(() => admin.get('/audit/detail', auditLogEntrySchema, { log_id: id }), [admin, id])
  return (
    <section aria-labelledby="entry-title">
      <p>
        <a href={auditListHref()}>← Audit Logs</a>
      </p>
      <Loadable remote={entry} label="Loading the entry…">
        {(found) => (
          <>
            <div class="view-header">
              <h1 id="entry-title">
                <code>{found.method}</code> {found.path} <StatusBadge status={found.status_code} />
              </h1>
              <span class="muted">{formatDateTime(found.timestamp)}</span>
            </div>
            <nav class="tabs" aria-label="Entry views">
              <a href={hrefOf(['audit', id])} aria-current={tab === 'details' ? 'page' : undefined}>
                Details
              </a>
              <a href={hrefOf(['audit', id, 'conversation'])} aria-current={tab === 'conversation' ? 'page' : undefined}>
                Conversation
              </a>
            </nav>
            {tab === 'details' ? <EntryDetails entry={found} /> : <ConversationView entry={found} />}
          </>
        )}
      </Loadable>
    </section>
  )
}

function EntryDetails({ entry }: { entry: AuditLogEntry }) {
  const { data } = entry
  const content = useCan('audit.content')
  const hidden = <p class="muted">Bodies and headers are shown to auditors and admins only.</p>
  return (
    <>
      <Summary entry={entry} />
      {(entry.error_type || data.error_message) && (
        <div role="note" class="entry-error">
          <strong>{entry.error_type || data.error_code}</strong> {data.error_message}
          {data.error_provider && <small> (from {data.error_provider})</small>}
        </div>
      )}
      {entry.usage && (
        <Section title="Usage and cost">
          <dl class="facts">
            <Fact label="Input tokens">
              {formatCount(entry.usage.input_tokens)} ({formatCount(entry.usage.cached_input_tokens)} cached, {formatCount(entry.usage.cache_write_input_tokens)} cache write)
            </Fact>
            <Fact label="Output tokens">{formatCount(entry.usage.output_tokens)}</Fact>
            <Fact label="Total tokens">{formatCount(entry.usage.total_tokens)}</Fact>
            {entry.usage.unit && entry.usage.units !== undefined && (
              <Fact label="Priced per unit">{formatUnits(entry.usage.unit, entry.usage.units, entry.usage.unit_variant)}</Fact>
            )}
            <Fact label="Cost">{entry.usage.cost_usd === undefined ? 'not priced' : formatUsd(entry.usage.cost_usd)}</Fact>
            <Fact label="Saved by rewriters">
              {formatCount(entry.usage.rewrite_tokens_saved)} tokens, {formatUsd(entry.usage.rewrite_cost_saved)}
            </Fact>
          </dl>
        </Section>
      )}
      {(data.event_before !== undefined || data.event_after !== undefined) && (
        <Section title="Change">
          <JsonBlock title="Before" value={data.event_before ?? null} />
          <JsonBlock title="After" value={data.event_after ?? null} />
        </Section>
      )}
      {!data.event_type && (
        <Section title="Bodies">
          {content ? (
            <>
              <Body title="Request body" value={data.request_body} tooBig={data.request_body_too_big_to_handle} />
              {data.request_parts && data.request_parts.length > 0 && <UploadParts parts={data.request_parts} />}
              {data.response_binary ? (
                <BinaryAnswer binary={data.response_binary} />
              ) : (
                <>
                  <AnswerImages body={data.response_body} />
                  <Body title="Response body" value={data.response_body} tooBig={data.response_body_too_big_to_handle} />
                </>
              )}
            </>
          ) : (
            hidden
          )}
        </Section>
      )}
      {data.attempts && data.attempts.length > 0 && (
        <Section title="Attempts">
          <AttemptsTimeline attempts={data.attempts} failoverTarget={data.failover?.target_model} />
        </Section>
      )}
      {data.request_revisions && data.request_revisions.length > 0 && (
        <Section title="Request revisions">
          <RevisionsList revisions={data.request_revisions} originalBody={data.request_body} />
        </Section>
      )}
      {data.workflow_features && (
        <Section title="Workflow features in effect">
          <ul class="feature-list">
            {FEATURE_IDS.map((feature) => (
              <li key={feature} class={data.workflow_features![feature] ? 'on' : 'off'}>
                {data.workflow_features![feature] ? '✓' : '✗'} {feature}
              </li>
            ))}
          </ul>
          <small class="muted">Workflow version {entry.workflow_version_id || '–'}</small>
        </Section>
      )}
      {!data.event_type && (
        <Section title="Headers">
          {content ? (
            <>
              <Headers title="Request headers" headers={data.request_headers} />
              <Headers title="Response headers" headers={data.response_headers} />
            </>
          ) : (
            hidden
          )}
        </Section>
      )}
    </>
  )
}

function Summary({ entry }: { entry: AuditLogEntry }) {
  const { data } = entry
  const sessionHref = hrefOf(['audit'], new URLSearchParams({ session_id: entry.session_id }))
  return (
    <dl class="facts">
      <Fact label="Request ID">
        <code>{entry.request_id}</code> <CopyButton text={entry.request_id} />
      </Fact>
      <Fact label="Entry ID">
        <code>{entry.id}</code>
      </Fact>
      {data.trace_id && (
        <Fact label="Trace ID">
          <code>{data.trace_id}</code> <CopyButton text={data.trace_id} />
        </Fact>
      )}
      <Fact label="Duration">{formatDurationNs(entry.duration_ns)}</Fact>
      {data.event_type && (
        <Fact label="Event">
          {data.event_type} {data.event_message && <small>{data.event_message}</small>}
        </Fact>
      )}
      {data.mcp && (
        <Fact label="MCP">
          {data.mcp.server ? `server ${data.mcp.server}` : 'gateway'}
          {data.mcp.name && <> · {data.mcp.name}</>}
          {data.mcp.result_bytes !== undefined && <small class="muted"> · result {data.mcp.result_bytes} bytes</small>}
          {data.mcp.is_error && <span class="badge badge-warn">tool error</span>}
          {data.mcp.rpc_error_code !== undefined && <small class="muted"> · JSON-RPC error {data.mcp.rpc_error_code}</small>}
          {data.mcp.price_usd !== undefined && <small class="muted"> · {data.mcp.price_usd} USD</small>}
          {data.mcp.tool_call_id && <small class="muted"> · for the model's tool call {data.mcp.tool_call_id}</small>}
        </Fact>
      )}
      <Fact label={data.mcp ? 'Tool or prompt' : 'Model'}>
        {entry.requested_model || '–'}
        {entry.resolved_model && entry.resolved_model !== entry.requested_model && <> → {entry.resolved_model}</>}
        {entry.alias_used && <small class="muted"> (virtual model)</small>}
      </Fact>
      <Fact label="Provider">{entry.provider_name ? `${entry.provider_name} (${entry.provider})` : '–'}</Fact>
      <Fact label="Stream">{entry.stream ? 'yes' : 'no'}</Fact>
      <Fact label="Cache">{entry.cache_type || 'none'}</Fact>
      <Fact label="Session">{entry.session_id ? <a href={sessionHref}>{entry.session_id}</a> : '–'}</Fact>
      <Fact label="User path">{entry.user_path}</Fact>
      {!data.event_type && <Fact label="Labels">{data.labels && data.labels.length > 0 ? <LabelChips labels={data.labels} /> : '–'}</Fact>}
      <Fact label="Credential">
        {entry.auth_method}
        {entry.auth_key_id && <> · key {entry.auth_key_id}</>}
        {data.api_key_hash && <small class="muted"> · hash {data.api_key_hash}</small>}
      </Fact>
      <Fact label="Client">
        {entry.client_ip || '–'} {data.user_agent && <small class="muted">{data.user_agent}</small>}
      </Fact>
    </dl>
  )
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="entry-section">
      <h2>{title}</h2>
      {children}
    </section>
  )
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

function Body({ title, value, tooBig }: { title: string; value: unknown; tooBig?: boolean }) {
  if (value !== undefined) return <JsonBlock title={title} value={value} />
  return (
    <p class="muted">
      {title}: {tooBig ? 'larger than 1 MiB, not stored.' : 'not stored (body logging is off: LOGGING_LOG_BODIES).'}
    </p>
  )
}

function Headers({ title, headers }: { title: string; headers?: Record<string, string> }) {
  if (!headers) return <p class="muted">{title}: not stored (header logging is off: LOGGING_LOG_HEADERS).</p>
  return (
    <details>
      <summary>{title}</summary>
      <HeadersTable headers={headers} />
    </details>
  )
}
