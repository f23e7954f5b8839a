import { expect, test } from 'bun:test'
import { OutputTail } from './output-tail.ts'

test('stderr is kept as a bounded tail and logged at a bounded rate, with the dropped lines counted', () => {
  let now = 0
  const tail = new OutputTail(100, 2, 50, () => now)
  expect(tail.append('one\ntwo\nthree\nfour\n')).toEqual(['one', 'two'])
  expect(tail.append('par')).toEqual([])
  now += 60_000
  expect(tail.append(`tial\n${'z'.repeat(80)}\n`)).toEqual(['partial (2 earlier lines not logged)', `${'z'.repeat(50)}…`])
  expect(tail.text().length).toBeLessThanOrEqual(100)
})
