import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { couldHoldMoreValues, JsonValueCounter, MAX_JSON_VALUES } from './json-values.ts'

const encode = (text: string) => new TextEncoder().encode(text)

/** What the counter counts, from the parsed value: each container, and each element or member after its first. */
function expectedCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return 1 + Math.max(0, children.length - 1) + children.reduce((sum: number, child) => sum + expectedCount(child), 0)
}

/** Counts `bytes` fed in pieces cut at `cuts`. */
function countInPieces(bytes: Uint8Array, cuts: number[], limit = Number.MAX_SAFE_INTEGER): { values: number; over: boolean } {
  const counter = new JsonValueCounter(limit)
  let over = false
  let at = 0
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    over = counter.push(bytes.subarray(at, cut)) || over
    at = cut
  }
  return { values: counter.values, over }
}

test('counts containers and separators, never what is inside strings', () => {
  const structure = '[{"a":1,"b":[2,3]},[],{}]'
  expect(countInPieces(encode(structure), []).values).toBe(9)
  expect(expectedCount(JSON.parse(structure))).toBe(9)
  // Brackets and commas in strings, escaped quotes, escaped backslashes before a closing quote, non-ASCII text.
  const strings = `["${'[{,'.repeat(10)}", "a\\"[[[,", "b\\\\", "c\\\\\\"{{{", "ü,{€[😀"]`
  expect(JSON.parse(strings)).toHaveLength(5)
  expect(countInPieces(encode(strings), []).values).toBe(5)
})

test('the count is the same whatever the pieces the body arrives in (fuzzed)', () => {
  fc.assert(
    fc.property(fc.json(), fc.array(fc.nat({ max: 400 }), { maxLength: 12 }), (text, cuts) => {
      const bytes = encode(text)
      expect(countInPieces(bytes, cuts).values).toBe(expectedCount(JSON.parse(text)))
    }),
    { numRuns: 500 },
  )
})

test('a backslash at the end of a piece escapes the first byte of the next', () => {
  const text = '["a\\"],[,", 1]'
  expect(JSON.parse(text)).toHaveLength(2)
  for (let cut = 1; cut < text.length; cut++) expect(countInPieces(encode(text), [cut]).values).toBe(2)
})

test('the limit: over it as soon as it is passed', () => {
  const dense = encode(`[${'[],'.repeat(999)}[]]`)
  expect(countInPieces(dense, [], 2000)).toEqual({ values: 2000, over: false })
  expect(countInPieces(dense, [], 1999).over).toBe(true)
  expect(couldHoldMoreValues(dense.length, 1999)).toBe(true)
  // Shorter bodies cannot pass the limit, so they are not counted.
  expect(couldHoldMoreValues(dense.length, dense.length)).toBe(false)
})

test('32 MiB of empty objects is over the limit after its first 3 MB; 32 MiB of base64 is counted within 100 ms', () => {
  const size = 32 * 1024 * 1024
  const objects = encode(`{"model":"x","messages":[${'{},'.repeat(size / 3 - 20)}{}]}`)
  const counter = new JsonValueCounter(MAX_JSON_VALUES)
  let started = performance.now()
  const piece = 64 * 1024
  let read = 0
  while (!counter.push(objects.subarray(read, read + piece))) read += piece
  expect(read).toBeLessThan(2 * MAX_JSON_VALUES)
  expect(performance.now() - started).toBeLessThan(100)
  const image = encode(`{"model":"x","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,${'QUJD'.repeat(size / 4 - 100)}"}}]}]}`)
  started = performance.now()
  const imageCounter = new JsonValueCounter(MAX_JSON_VALUES)
  for (let at = 0; at < image.length; at += piece) expect(imageCounter.push(image.subarray(at, at + piece))).toBe(false)
  expect(imageCounter.values).toBe(9)
  expect(performance.now() - started).toBeLessThan(250)
})

test('a piece of many short strings is read once, not once per string (linear in the piece)', () => {
  const messages = encode(`{"messages":[${'{"role":"user","content":"hi"},'.repeat(99_999)}{"role":"user","content":"hi"}]}`)
  const started = performance.now()
  const counter = new JsonValueCounter(MAX_JSON_VALUES)
  expect(counter.push(messages)).toBe(false)
  expect(counter.values).toBe(3 + 3 * 99_999 + 1)
  expect(performance.now() - started).toBeLessThan(200)
})
