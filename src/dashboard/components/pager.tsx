/** @jsxImportSource preact */
/** @module "26–50 of 132" with Previous and Next. */
import { formatCount } from '../format.ts'

export function Pager({ offset, limit, total, onOffset }: { offset: number; limit: number; total: number; onOffset: (offset: number) => void }) {
  const last = Math.min(offset + limit, total)
  return (
    <div class="pager">
      <span>
        {total === 0 ? 0 : formatCount(offset + 1)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <div role="group">
        <button type="button" class="secondary outline" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" class="secondary outline" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
          Next
        </button>
      </div>
    </div>
  )
}
