/** @jsxImportSource preact */
/**
 * @module The Conversation tab: the entry's thread (its session, or its Responses chain) as a transcript. Each
 * turn shows only what it added: messages a client resent from earlier turns are folded away.
 */
import { useAdmin, useCan } from '../api/admin-context.ts'
import { auditConversationSchema, type AuditLogEntry } from '../api/schemas.ts'
import { EmptyState, Loadable } from '../components/status.tsx'
import { useRemote } from '../components/use-remote.ts'
import { formatDateTime } from '../format.ts'
import { hrefOf } from '../router.ts'
import { StatusBadge } from './audit-log-view.tsx'
import { answerTranscript, repeatedPrefix, requestTranscript, type TranscriptMessage, type TranscriptPart } from './transcript.ts'

const THREAD_LIMIT = 40

interface Turn {
  entry: AuditLogEntry
  earlier: number
  messages: TranscriptMessage[]
}

function turnsOf(entries: AuditLogEntry[]): Turn[] {
  let previous: TranscriptMessage[] = []
  return entries.map((entry) => {
    const request = requestTranscript(entry.data.request_body)
    const earlier = repeatedPrefix(previous, request)
    const answer = answerTranscript(entry.data.response_body)
    previous = [...request, ...answer]
    return { entry, earlier, messages: [...request.slice(earlier), ...answer] }
  })
}

export function ConversationView({ entry }: { entry: AuditLogEntry }) {
  const admin = useAdmin()
  const content = useCan('audit.content')
  const thread = useRemote(() => admin.get('/audit/conversation', auditConversationSchema, { log_id: entry.id, limit: THREAD_LIMIT }), [admin, entry.id])
  return (
    <Loadable remote={thread} label="Loading the conversation…">
      {(result) => {
        const turns = turnsOf(result.entries)
        if (turns.every((turn) => turn.messages.length === 0))
          return (
            <EmptyState>
              {content
                ? 'No chat-shaped bodies to show. Bodies are stored only with LOGGING_LOG_BODIES=true, and only chat, Responses and Messages requests read as a conversation.'
                : 'Bodies are shown to auditors and admins only.'}
            </EmptyState>
          )
        return (
          <div class="transcript">
            {result.truncated && <p class="muted">Showing {result.entries.length} entries around this one; the thread is longer.</p>}
            {turns.map((turn) => (
              <TurnView key={turn.entry.id} turn={turn} anchor={turn.entry.id === result.anchor_id} />
            ))}
          </div>
        )
      }}
    </Loadable>
  )
}

function TurnView({ turn, anchor }: { turn: Turn; anchor: boolean }) {
  const { entry } = turn
  return (
    <section class={anchor ? 'turn anchor' : 'turn'} aria-label={`Request at ${formatDateTime(entry.timestamp)}`}>
      <header class="turn-header">
        <StatusBadge status={entry.status_code} /> {formatDateTime(entry.timestamp)} · {entry.requested_model || entry.path}
        {anchor ? <strong> · this entry</strong> : <a href={hrefOf(['audit', entry.id])}> · open</a>}
      </header>
      {turn.earlier > 0 && <p class="muted small">{turn.earlier} earlier messages repeated by the client</p>}
      {turn.messages.length === 0 && <p class="muted small">No bodies stored for this request.</p>}
      {turn.messages.map((message, i) => (
        <div key={i} class={`bubble role-${message.role}`}>
          <div class="bubble-role">{message.role}</div>
          {message.parts.map((part, j) => (
            <PartView key={j} part={part} />
          ))}
        </div>
      ))}
    </section>
  )
}

function PartView({ part }: { part: TranscriptPart }) {
  switch (part.kind) {
    case 'text':
      return <p class="bubble-text">{part.text}</p>
    case 'reasoning':
      return <p class="bubble-text muted">{part.text}</p>
    case 'tool_call':
      return (
        <div class="tool-call">
          Tool call <code>{part.name}</code>
          {part.id && <small class="muted"> {part.id}</small>}
          <pre>{part.input}</pre>
        </div>
      )
    case 'tool_result':
      return (
        <div class="tool-result">
          Tool result{part.id && <small class="muted"> for {part.id}</small>}
          <pre>{part.output}</pre>
        </div>
      )
    case 'attachment':
      return <p class="muted">[{part.label}]</p>
  }
}
