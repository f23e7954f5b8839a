import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { parseTiktoken, rankOf } from './rank-table.ts'
import { countO200kTokens } from './tokenizer.ts'

/** gpt-tokenizer's count (its own tables, its own merge code), with special-token spellings read as text. */
const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set() })

const SAMPLES = [
  'The quick brown fox jumps over the lazy dog.',
  "I'm sure they'll say it's fine; we've DONE it, haven't we? YOU'RE right.",
  'function add(a, b) {\n  return a + b // 42\n}\n\n\n    indented\tand\ttabbed  \r\n',
  '{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}',
  'Ünïcödé façade naïve — “quotes” … 漢字仮名交じり文 한국어 텍스트 العربية עברית हिन्दी',
  '🙂🙃 👩‍👩‍👧‍👦 🏳️‍🌈 1234567890 3.14159 1,000,000 0x7fff',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  '<|endoftext|> <|im_start|>user<|im_sep|> spelled out',
  '   leading and trailing spaces   ',
  '',
]

test('counts what gpt-tokenizer counts, on prose, code, JSON, scripts, emoji and runs', () => {
  for (const text of SAMPLES) expect({ text, tokens: countO200kTokens(text) }).toEqual({ text, tokens: reference(text) })
})

test('a special token spelled in the text is counted as the text it is', () => {
  expect(countO200kTokens('<|endoftext|>')).toBeGreaterThan(1)
})

test('counts what gpt-tokenizer counts, on any text', () => {
  // Words and fragments that merge in many ways, joined with any characters between them.
  const fragment = fc.oneof(
    fc.constantFrom('the', ' The', 'ing', "n't", "'ll", ' 漢字', 'ü', '🙂', '  ', '\n', '\t', '123', '4567', '.', ',"', '{}', '://', 'ÿ'),
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.string({ unit: 'grapheme', maxLength: 4 }),
  )
  fc.assert(
    fc.property(fc.array(fragment, { maxLength: 30 }), (parts) => {
      const text = parts.join('')
      expect(countO200kTokens(text)).toBe(reference(text))
    }),
    { numRuns: 300 },
  )
})

test('the rank table finds every token of a .tiktoken file by its bytes, and nothing else', () => {
  const tokens = ['a', 'b', 'ab', 'ü', '\u00ff\u00fe']
  const file = `${tokens.map((t, rank) => `${Buffer.from(t).toString('base64')} ${rank}`).join('\n')}\n`
  const table = parseTiktoken(new TextEncoder().encode(file))
  expect(table.size).toBe(tokens.length)
  tokens.forEach((t, rank) => {
    const bytes = Buffer.from(`x${t}x`)
    expect(rankOf(table, bytes, 1, bytes.length - 1)).toBe(rank)
  })
  const other = Buffer.from('ba')
  expect(rankOf(table, other, 0, 2)).toBe(-1)
  expect(rankOf(table, other, 0, 0)).toBe(-1)
})

test('a malformed .tiktoken file is refused', () => {
  expect(() => parseTiktoken(new TextEncoder().encode('YQ== 0\nYg== 2\n'))).toThrow(/rank 2, expected 1/)
  expect(() => parseTiktoken(new TextEncoder().encode('Y*== 0\n'))).toThrow(/not base64/)
})
