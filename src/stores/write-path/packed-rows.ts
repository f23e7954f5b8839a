/**
 * @module A batch of rows (tuples of strings, numbers and nulls) packed for the hop to the write thread: every
 * string of the batch joined into one text, and one number per cell (a string's length, the number itself).
 *
 * Why not post the rows as they are: structured clone copies each string of each row on its own, which cost
 * the request thread about 7 µs per audit row in the defaults benchmark (postMessage was the largest single audit
 * cost on that thread). Joining the strings and posting one text plus one typed array costs about a fifth of
 * that, and slicing them apart again on the write thread less still. A string equal to the same cell of the row
 * before (the provider, model, path, key, client address… of a run of similar requests) is not joined again but
 * marked {@link REPEAT}: joining costs per piece (about 50 ns each on JavaScriptCore, whatever its length), and most
 * of an audit row's 28 strings repeat from one request to the next.
 */

/** A cell of a row as the stores bind it. */
export type Cell = string | number | null

export interface PackedRows {
  /** Every string cell, in order, end to end. */
  text: string
  /** Per cell: the string's length (UTF-16 units), the number, or 0 for null; `kinds` says which. */
  cells: Float64Array
  /** Per cell: {@link STRING}, {@link NUMBER}, {@link NULL} or {@link REPEAT}. */
  kinds: Uint8Array
  /** Cells per row (every row of a batch has the same width). */
  width: number
}

const STRING = 0
const NUMBER = 1
const NULL = 2
/** The same string as this cell of the row before. */
const REPEAT = 3

export function packRows(rows: readonly (readonly Cell[])[]): PackedRows {
  const width = rows[0]?.length ?? 0
  const cells = new Float64Array(rows.length * width)
  const kinds = new Uint8Array(rows.length * width)
  const texts: string[] = []
  let k = 0
  let previous: readonly Cell[] | undefined
  for (const row of rows) {
    if (row.length !== width) throw new Error(`packRows: a row has ${row.length} cells, the batch ${width}`)
    for (let c = 0; c < width; c++, k++) {
      const value = row[c]
      if (typeof value === 'string') {
        if (previous !== undefined && previous[c] === value) kinds[k] = REPEAT
        else {
          cells[k] = value.length
          texts.push(value)
        }
      } else if (typeof value === 'number') {
        cells[k] = value
        kinds[k] = NUMBER
      } else if (value === null || value === undefined)
        kinds[k] = NULL // bun:sqlite binds undefined as NULL too
      else throw new Error(`packRows: cell ${c} is a ${typeof value}, not a string, number or null`)
    }
    previous = row
  }
  return { text: texts.join(''), cells, kinds, width }
}

export function unpackRows<Row extends readonly Cell[]>({ text, cells, kinds, width }: PackedRows): Row[] {
  const rows: Row[] = []
  let at = 0
  let previous: Cell[] | undefined
  for (let k = 0; k < cells.length; ) {
    const row: Cell[] = new Array(width)
    for (let c = 0; c < width; c++, k++) {
      const kind = kinds[k]
      if (kind === STRING) {
        const end = at + cells[k]!
        row[c] = text.slice(at, end)
        at = end
      } else if (kind === REPEAT) {
        if (!previous) throw new Error('unpackRows: the first row repeats a cell of no row')
        row[c] = previous[c]!
      } else row[c] = kind === NUMBER ? cells[k]! : null
    }
    rows.push(row as unknown as Row)
    previous = row
  }
  if (at !== text.length) throw new Error(`unpackRows: ${text.length - at} characters of the text were not claimed by any cell`)
  return rows
}
