import { expect, test } from 'bun:test'
import { makeEntry, rowsOf, T0 } from '../../../test/helpers/audit-entries.ts'
import { type Cell, packRows, unpackRows } from './packed-rows.ts'

test('rows come back cell for cell: empty, non-Latin-1 and NUL-bearing strings, numbers of every sign, nulls', () => {
  const rows: Cell[][] = [
    ['', 0, null, 'a\u0000b', -1.5],
    ['日本語 🚀', Number.MAX_SAFE_INTEGER, 'x', '', 1e-9],
    ['\ud800 lone surrogate', -0, '"quoted" {json}', null, 42],
  ]
  const back = unpackRows(packRows(rows))
  expect(back).toEqual(rows)
  expect(Object.is(back[2]![1], -0)).toBe(true)
})

test('audit rows survive the round trip exactly; the text holds each string once, a cell equal to the one above not again', () => {
  const rows = rowsOf(Array.from({ length: 20 }, (_, i) => makeEntry({ at: T0 + i, requested_model: i % 3 ? 'fast' : 'smart' })))
  const packed = packRows(rows)
  const newChars = rows.reduce((n, row, r) => n + row.reduce<number>((m, v, c) => m + (typeof v === 'string' && (r === 0 || rows[r - 1]![c] !== v) ? v.length : 0), 0), 0)
  const allChars = rows.flat().reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 0), 0)
  expect(packed.text.length).toBe(newChars)
  expect(newChars).toBeLessThan(allChars / 2)
  expect(unpackRows(packed)).toEqual(rows)
})

test('a repeated cell is the string above it, only in its own column, and never in the first row', () => {
  const rows: Cell[][] = [
    ['a', 'b', 'a'],
    ['a', 'a', 'b'],
    ['a', 'a', 'a'],
  ]
  const packed = packRows(rows)
  expect(packed.text).toBe('abaaba')
  expect(unpackRows(packed)).toEqual(rows)
  const kinds = new Uint8Array(packed.kinds)
  kinds[1] = kinds[3]! // the first row's second cell claims to repeat
  expect(() => unpackRows({ ...packed, kinds })).toThrow(/repeats a cell of no row/)
})

test('undefined comes back as null, the value bun:sqlite binds for it', () => {
  expect(unpackRows(packRows([['a', undefined as unknown as Cell, 1]]))).toEqual([['a', null, 1]])
})

test('an empty batch packs to nothing; rows of different widths or other types are refused', () => {
  expect(unpackRows(packRows([]))).toEqual([])
  expect(() => packRows([['a', 1], ['b']])).toThrow(/1 cells, the batch 2/)
  expect(() => packRows([[true as unknown as Cell]])).toThrow(/boolean/)
})

test('a packed batch whose text and cells disagree is refused rather than misread', () => {
  const packed = packRows([['abc', 'de']])
  expect(() => unpackRows({ ...packed, text: `${packed.text}X` })).toThrow(/not claimed/)
})
