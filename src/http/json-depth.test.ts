import { expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'

const depthOver = (text: string, limit: number) => nestsDeeperThan(JSON.parse(text), limit)

test('depth counts objects and arrays, not brackets inside strings', () => {
  expect(depthOver('{"a":[{"b":1}]}', 3)).toBe(false)
  expect(depthOver('{"a":[{"b":[1]}]}', 3)).toBe(true)
  expect(depthOver('[1,2,[3,[4]]]', 2)).toBe(true)
  expect(depthOver('[1,2,[3,[4]]]', 3)).toBe(false)
  expect(depthOver(`{"a":"${'['.repeat(1000)}"}`, 2)).toBe(false)
  expect(depthOver(`{"a":"\\"${'{'.repeat(1000)}"}`, 2)).toBe(false)
  expect(depthOver('"scalar"', 0)).toBe(false)
  expect(depthOver('{}', 0)).toBe(true)
})

test('a body nested 100,000 levels deep parses (JSON.parse is not recursive) and is found too deep', () => {
  expect(depthOver('['.repeat(100_000) + ']'.repeat(100_000), MAX_JSON_DEPTH)).toBe(true)
  expect(depthOver(`{"a":${'{"b":'.repeat(100_000)}1${'}'.repeat(100_000)}}`, MAX_JSON_DEPTH)).toBe(true)
  expect(depthOver(`{"wide":[${Array.from({ length: 10_000 }, () => '[[1]]').join(',')}]}`, MAX_JSON_DEPTH)).toBe(false)
})
