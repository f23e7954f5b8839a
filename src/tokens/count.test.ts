import { expect, test } from 'bun:test'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { countChatPromptTokens, countCompletionTokens, countTextTokens, countTextsTokens } from './count.ts'

test('counts with the o200k tokenizer', () => {
  expect(countTextTokens('')).toBe(0)
  expect(countTextTokens('hello world')).toBe(2)
  expect(countTextTokens('hello      world')).toBeGreaterThan(countTextTokens('hello world'))
})

test('prompt tokens grow with messages and tools; completion tokens with the answer', () => {
  const one = countChatPromptTokens({ messages: [{ role: 'user', content: 'Say hello to everyone in the room' }] })
  const two = countChatPromptTokens({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello to everyone in the room' }] }, { role: 'assistant', content: 'Hello everyone' }] })
  const withTools = countChatPromptTokens({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] })
  expect(one).toBeGreaterThan(5)
  expect(two).toBeGreaterThan(one)
  expect(withTools).toBeGreaterThan(countChatPromptTokens({ messages: [{ role: 'user', content: 'x' }] }))
  expect(countCompletionTokens({ choices: [{ message: { content: 'Hello there, friend' } }] })).toBe(4)
})

/**
 * Generous on purpose: a count spends at most ~3 ms encoding (plus one window), but the machine running the suite
 * is shared; before the fix these inputs took from seconds to minutes.
 */
const LIMIT_MS = 100

/** Milliseconds one call takes (best of three, so a GC pause elsewhere does not decide the result). */
function fastest(fn: () => unknown): number {
  let best = Infinity
  for (let i = 0; i < 3; i++) {
    const started = performance.now()
    fn()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

// Hostile shapes: one long word (the tokenizer's merge step is quadratic in the length of a piece), text without
// spaces in a script that has none, random code points (many byte-level tokens per character), base64.
const randomText = (n: number, maxCode: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7919 + 13) % maxCode))).join('')
const HOSTILE: Record<string, string> = {
  'one 128 KB word': 'y'.repeat(128 * 1024),
  'one 1 MB word': 'y'.repeat(1024 * 1024),
  'CJK without spaces': '漢字仮名交じり文'.repeat(16_000),
  'random code points': randomText(256 * 1024, 0xd000),
  base64: Buffer.from(randomText(300_000, 90)).toString('base64'),
}

for (const [name, text] of Object.entries(HOSTILE)) {
  test(`an estimate is bounded in time: ${name}`, () => {
    countTextTokens(text.slice(0, 10)) // warm the tokenizer's tables
    expect(fastest(() => countTextTokens(text))).toBeLessThan(LIMIT_MS)
    expect(fastest(() => countChatPromptTokens({ messages: [{ role: 'user', content: text }] }))).toBeLessThan(LIMIT_MS)
  })
}

test('many long texts in one request share one budget', () => {
  const texts = Array.from({ length: 500 }, (_, i) => `${i}${'z'.repeat(8_000)}`)
  expect(fastest(() => countTextsTokens(texts))).toBeLessThan(LIMIT_MS)
  expect(fastest(() => countChatPromptTokens({ messages: texts.map((content) => ({ role: 'user', content })) }))).toBeLessThan(LIMIT_MS)
})

test('estimates stay close to the exact count', () => {
  const prose = 'The quick brown fox jumps over the lazy dog, said 42 people in 2024! Ünïcödé 漢字 🙂 '.repeat(4000)
  const exact = countTokens(prose)
  const estimate = countTextTokens(prose)
  expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.05)
  // A long word is cut into pieces; o200k needs about one token per four letters of it either way.
  expect(countTextTokens('y'.repeat(4096))).toBe(countTokens('y'.repeat(4096)))
  const word = countTextTokens('y'.repeat(1024 * 1024))
  expect(word).toBeGreaterThan(200_000)
  expect(word).toBeLessThan(300_000)
  // Short texts are counted exactly.
  const short = 'A sentence of ordinary length, with punctuation; and numbers like 3.14159.'
  expect(countTextTokens(short)).toBe(countTokens(short))
})
