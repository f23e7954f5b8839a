import { expect, test } from 'bun:test'
import { z } from 'zod'
import { validationError } from './validation-error.ts'

const item = z.looseObject({ role: z.string() })
const schema = z.looseObject({ model: z.string(), items: z.array(item).max(200_000), tags: z.array(z.string()).optional() })

test('a valid value has no error', () => {
  expect(validationError(schema, { model: 'm', items: [{ role: 'user' }] })).toBeUndefined()
})

test('a hundred thousand bad elements: one issue, the first, found without checking the rest', () => {
  const value = { model: 'm', items: Array.from({ length: 100_000 }, () => ({})) }
  const everyIssue = schema.safeParse(value).error!.issues.length
  expect(everyIssue).toBe(100_000)
  expect(validationError(schema, value)).toMatchObject({ status: 400, param: 'items.0.role' })
  // Checking all of them takes tens of milliseconds; stopping at the first takes microseconds (best of three runs:
  // a loaded machine can deschedule one).
  let fastest = Infinity
  for (let run = 0; run < 3; run++) {
    const started = performance.now()
    validationError(schema, value)
    fastest = Math.min(fastest, performance.now() - started)
  }
  expect(fastest).toBeLessThan(20)
})

test('the first problem of several fields is the one named; the options reach fromZod', () => {
  const error = validationError(schema, { model: 5, items: [{}], tags: [1] }, { code: 'invalid_thing', prefix: ['body'] })!
  expect(error).toMatchObject({ code: 'invalid_thing', param: 'body.model' })
})

test('an array over its bound is refused by its length, its elements never checked', () => {
  const value = { model: 'm', items: Array.from({ length: 1_000_000 }, () => ({})) }
  const started = performance.now()
  expect(validationError(schema, value)).toMatchObject({ param: 'items' })
  // Checking a million elements takes about a second.
  expect(performance.now() - started).toBeLessThan(100)
})
