import { expect, test } from 'bun:test'
import type { ProviderBatchStatus } from '../provider-batch-api.ts'
import { boundedGroups, combinedStatus, jobOfParts, partsOfJob } from './job-parts.ts'

test('groups keep the order and stay within the count and the bytes; an item larger than the bound is alone', () => {
  const sizes = [3, 3, 3, 9, 12, 1, 1, 1, 1]
  const groups = boundedGroups(sizes, (n) => n, 3, 10)
  expect(groups).toEqual([[3, 3, 3], [9], [12], [1, 1, 1], [1]])
  expect(groups.flat()).toEqual(sizes)
  expect(boundedGroups([], (n: number) => n, 3, 10)).toEqual([])
})

const status = (state: ProviderBatchStatus['state'], total: number, completed: number, failed: number, error?: string): ProviderBatchStatus =>
  error ? { state, counts: { total, completed, failed }, error } : { state, counts: { total, completed, failed } }

test("a job's status: running while any part runs, else the common state, else completed when any part completed; counts summed", () => {
  expect(combinedStatus([status('completed', 2, 2, 0), status('in_progress', 3, 1, 0)])).toEqual(status('in_progress', 5, 3, 0))
  expect(combinedStatus([status('expired', 2, 1, 1), status('expired', 1, 0, 1)])).toEqual(status('expired', 3, 1, 2))
  expect(combinedStatus([status('failed', 2, 0, 0, 'bad line'), status('completed', 1, 1, 0)])).toEqual(status('completed', 3, 1, 0, 'bad line'))
  expect(combinedStatus([status('failed', 1, 0, 0, 'a'), status('cancelled', 1, 0, 1), status('expired', 1, 0, 1)])).toEqual(status('cancelled', 3, 0, 2, 'a'))
})

test("a job's parts survive its JSON round trip; a job without parts is its one batch", () => {
  const job = jobOfParts([
    { id: 'b1', inputFileId: 'f1' },
    { id: 'b2', inputFileId: 'f2' },
  ])
  expect(job.id).toBe('b1')
  expect(partsOfJob(JSON.parse(JSON.stringify(job)))).toEqual([
    { id: 'b1', inputFileId: 'f1' },
    { id: 'b2', inputFileId: 'f2' },
  ])
  expect(partsOfJob({ id: 'solo', detail: { model: 'm' } })).toEqual([{ id: 'solo', model: 'm' }])
  expect(() => jobOfParts([])).toThrow()
})
