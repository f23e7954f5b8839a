import { describe, expect, test } from 'bun:test'
import { detectors, luhnValid, maskSpans, patternDetector } from './detectors.ts'

const hits = (kind: keyof typeof detectors, text: string) => detectors[kind](text).map((s) => text.slice(s.start, s.end))

describe('detectors: true and false positives', () => {
  test('email', () => {
    expect(hits('email', 'write to jane.doe+tag@example.co.uk today')).toEqual(['jane.doe+tag@example.co.uk'])
    expect(hits('email', 'not an email: user@localhost, @handle, a@b')).toEqual([])
  })

  test('phone', () => {
    expect(hits('phone', 'call +1 (415) 555-0132 now')).toEqual(['+1 (415) 555-0132'])
    expect(hits('phone', 'or 030 1234 5678.')).toEqual(['030 1234 5678'])
    expect(hits('phone', 'on 2026-11-22 order 123456789 version 1.2.3 costs 42')).toEqual([])
  })

  test('card (Luhn-checked)', () => {
    expect(hits('card', 'card 4111 1111 1111 1111 exp')).toEqual(['4111 1111 1111 1111'])
    expect(hits('card', 'amex 3782-822463-10005')).toEqual(['3782-822463-10005'])
    expect(hits('card', 'not a card 4111 1111 1111 1112 nor 1234567890123')).toEqual([])
    expect(luhnValid('79927398713')).toBe(true)
    expect(luhnValid('79927398710')).toBe(false)
  })

  test('secrets', () => {
    const text = 'keys: sk-proj-abcdefghijklmnopqrstuvwx AKIAIOSFODNN7EXAMPLE ghp_' + 'a'.repeat(36) + ' AIza' + 'b'.repeat(35)
    expect(hits('secret', text)).toHaveLength(4)
    expect(hits('secret', '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----')).toHaveLength(1)
    expect(hits('secret', 'the word sk-short, a task-force, AKIA lowercase')).toEqual([])
  })

  test('patterns and words', () => {
    const words = patternDetector(undefined, ['project falcon', 'secret'])
    expect(words('About Project Falcon and secrets').length).toBe(1)
    expect(patternDetector('\\bacme-\\d+\\b', undefined)('ticket ACME-42').length).toBe(1)
  })

  test('masking merges overlapping spans', () => {
    expect(maskSpans('a 123 b', [{ start: 2, end: 5 }], '[X]')).toBe('a [X] b')
    expect(
      maskSpans(
        'abcdef',
        [
          { start: 1, end: 4 },
          { start: 2, end: 5 },
        ],
        '#',
      ),
    ).toBe('a#f')
  })
})
