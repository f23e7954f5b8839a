/** @jsxImportSource preact */
/** @module A request's labels as small links; each opens Audit Logs filtered by that label (docs/labels.md). */
import { hrefOf } from '../router.ts'

export function LabelChips({ labels }: { labels: readonly string[] | undefined }) {
  if (!labels || labels.length === 0) return null
  return (
    <span class="label-chips">
      {labels.map((label) => (
        <a
          key={label}
          class="badge badge-label"
          href={hrefOf(['audit'], new URLSearchParams({ label }))}
          aria-label={`Filter by label ${label}`}
          // Inside a clickable row: follow the link, do not open the row's entry.
          onClick={(event) => event.stopPropagation()}
          onKeyDown={(event) => event.stopPropagation()}
        >
          {label}
        </a>
      ))}
    </span>
  )
}
