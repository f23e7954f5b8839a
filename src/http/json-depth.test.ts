import { expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'

test('depth counts objects and arrays, not brackets inside strings', () => {
  expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false)
  expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true)
  expect(nestsDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 2)).toBe(false)
  expect(nestsDeeperThan(`{"a":"\\"${'{'.repeat(1000)}"}`, 2)).toBe(false)
  expect(nestsDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), MAX_JSON_DEPTH)).toBe(true)
})
