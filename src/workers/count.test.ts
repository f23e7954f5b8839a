import { expect, test } from 'bun:test'
import { WorkerCountError, workerCount } from './count.ts'

test('GATEWAY_WORKERS: unset or empty is one process, auto is the cores, numbers are taken as given', () => {
  expect(workerCount(undefined, 8)).toBe(1)
  expect(workerCount(' ', 8)).toBe(1)
  expect(workerCount('auto', 8)).toBe(8)
  expect(workerCount('AUTO', 2)).toBe(2)
  expect(workerCount('3', 8)).toBe(3)
})

test('GATEWAY_WORKERS: anything else is refused with a message naming the variable', () => {
  for (const bad of ['0', '-1', '1.5', 'two', '257']) expect(() => workerCount(bad, 8)).toThrow(WorkerCountError)
  expect(() => workerCount('two', 8)).toThrow(/GATEWAY_WORKERS/)
})
