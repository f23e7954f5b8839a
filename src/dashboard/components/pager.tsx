/** @jsxImportSource preact */
/** @module "26–50 of 132" with Previous and Next; "of 10,000+" when the total is a lower bound. */
import { formatCount } from '../format.ts'

/**
 * `atLeast`: the total is where counting stopped (`total_relation: gte`), not the number of matches. Such a page is
 * full (a partial page past the cap comes back with the exact total), so Next stays enabled past the total.
 */
export function Pager({
  offset,
  limit,
  total,
  atLeast = false,
  onOffset,
}: {
  offset: number
  limit: number
  total: number
  atLeast?: boolean
  onOffset: (offset: number) => void
}) {
  const last = atLeast ? offset + limit : Math.min(offset + limit, total)
  return (
    <div class="pager">
      <span>
        {total === 0 ? 0 : formatCount(offset + 1)}–{formatCount(last)} of{' '}
        {atLeast ? <span title={`Counting stops at ${formatCount(total)} matches`}>{formatCount(total)}+</span> : formatCount(total)}
      </span>
      <div role="group">
        <button type="button" class="secondary outline" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" class="secondary outline" disabled={!atLeast && last >= total} onClick={() => onOffset(offset + limit)}>
          Next
        </button>
      </div>
    </div>
  )
}
