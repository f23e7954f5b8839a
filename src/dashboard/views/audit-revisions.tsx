/** @jsxImportSource preact */
/**
 * @module What the rewriters changed: one card per revision with its byte and token savings, its detail, and a
 * line diff of the body before and after (before = the previous changed revision, or the client's body).
 */
import { diffLines } from 'diff'
import type { AuditLogEntry } from '../api/schemas.ts'
import { JsonBlock } from '../components/json-block.tsx'
import { formatBytes, formatCount, prettyJson } from '../format.ts'

type Revision = NonNullable<AuditLogEntry['data']['request_revisions']>[number]

/** Unchanged stretches longer than this are folded to their first and last CONTEXT lines. */
const CONTEXT = 3

export function RevisionsList({ revisions, originalBody }: { revisions: Revision[]; originalBody: unknown }) {
  let before = originalBody
  return (
    <div class="revisions">
      {revisions.map((revision) => {
        const previous = before
        if (!revision.no_change && revision.body !== undefined) before = revision.body
        return (
          <article key={revision.seq} class="revision">
            <header>
              <strong>
                #{revision.seq} {revision.rewriter}
              </strong>{' '}
              {revision.no_change ? (
                <span class="muted">no change</span>
              ) : (
                <span>
                  {formatBytes(revision.bytes_before)} → {formatBytes(revision.bytes_after)}, {formatCount(revision.tokens_saved)} tokens saved
                </span>
              )}
            </header>
            {revision.detail !== undefined && <JsonBlock title="Detail" value={revision.detail} open={false} />}
            {!revision.no_change && revision.body !== undefined && previous !== undefined && <BodyDiff before={previous} after={revision.body} />}
          </article>
        )
      })}
    </div>
  )
}

function BodyDiff({ before, after }: { before: unknown; after: unknown }) {
  const changes = diffLines(prettyJson(before), prettyJson(after))
  return (
    <details open class="diff">
      <summary>Diff (before → after)</summary>
      <pre aria-label="Body diff: lines starting with + were added, - removed">
        {changes.map((change, i) => {
          const lines = change.value.replace(/\n$/, '').split('\n')
          if (change.added) return lines.map((line, j) => <ins key={`${i}-${j}`}>+ {line}</ins>)
          if (change.removed) return lines.map((line, j) => <del key={`${i}-${j}`}>- {line}</del>)
          const shown = lines.length > CONTEXT * 2 + 1 ? [...lines.slice(0, CONTEXT), `… ${lines.length - CONTEXT * 2} unchanged lines`, ...lines.slice(-CONTEXT)] : lines
          return shown.map((line, j) => <span key={`${i}-${j}`}>{`  ${line}`}</span>)
        })}
      </pre>
    </details>
  )
}
