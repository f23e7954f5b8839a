/** @jsxImportSource preact */
/** @module "26–50 of 132" with Previous and Next; "of 10,000+" when the total is a lower bound. */
import { formatCount } from '../format.ts'

export interface PagerPosition {
  offset: number
  limit: number
  total: number
  /**
   * The total is where counting stopped (`total_relation: gte`), not the number of matches. Such a page is full (a
   * partial page past the cap comes back with the exact total), so Next stays enabled past the total.
   */
  atLeast?: boolean
}

/** What the pager shows: the range, the total as text, and whether a next page can exist. */
export function pagerState({ offset, limit, total, atLeast = false }: PagerPosition): { first: number; last: number; of: string; hasNext: boolean } {
  const last = atLeast ? offset + limit : Math.min(offset + limit, total)
  return { first: total === 0 ? 0 : offset + 1, last, of: `${formatCount(total)}${atLeast ? '+' : ''}`, hasNext: atLeast || last < total }
}

export function Pager({ onOffset, ...position }: PagerPosition & { onOffset: (offset: number) => void }) {
  const { offset, limit, total, atLeast } = position
  const { first, last, of, hasNext } = pagerState(position)
  return (
    <div class="pager">
      <span>
        {formatCount(first)}–{formatCount(last)} of {atLeast ? <span title={`Counting stops at ${formatCount(total)} matches`}>{of}</span> : of}
      </span>
      <div role="group">
        <button type="button" class="secondary outline" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" class="secondary outline" disabled={!hasNext} onClick={() => onOffset(offset + limit)}>
          Next
        </button>
      </div>
    </div>
  )
}

/**
 * Newer and Older over a list paged by cursor (`after` / `before` the last id of the page before): `cursors` are
 * the pages seen so far, the last one the page shown.
 */
export function CursorPager({
  cursors,
  onCursors,
  hasMore,
  lastId,
}: {
  cursors: (string | undefined)[]
  onCursors: (cursors: (string | undefined)[]) => void
  hasMore: boolean
  lastId: string | undefined
}) {
  return (
    <div class="toolbar">
      {cursors.length > 1 && (
        <button type="button" class="secondary outline compact" onClick={() => onCursors(cursors.slice(0, -1))}>
          Newer
        </button>
      )}
      {hasMore && lastId !== undefined && (
        <button type="button" class="secondary outline compact" onClick={() => onCursors([...cursors, lastId])}>
          Older
        </button>
      )}
    </div>
  )
}
