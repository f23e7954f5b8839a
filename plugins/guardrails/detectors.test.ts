import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { detectors, luhnValid, maskSpans, patternDetector } from './detectors.ts'
import { pemBlockSpans, phoneCandidateSpans } from './scanners.ts'

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

/** The regexes the scanners replaced (their time grows with the square of the text, or worse); the reference here. */
const FORMER = {
  email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  phone: /(?<![\w+])\+?\(?\d{1,4}\)?(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\w])/g,
  pem: /-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END (?:RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY( BLOCK)?-----/g,
}
const formerSpans = (re: RegExp, text: string) => [...text.matchAll(re)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }))
const formerPhone = (text: string) =>
  formerSpans(FORMER.phone, text).filter(({ start, end }) => {
    const m = text.slice(start, end)
    const digits = m.replace(/\D/g, '')
    return digits.length >= 9 && digits.length <= 15 && (m.startsWith('+') || /[\s.()-]/.test(m)) && !/^\d{4}-\d{2}-\d{2}$/.test(m)
  })

const textOf = (pieces: string[], maxLength: number) => fc.array(fc.constantFrom(...pieces), { maxLength }).map((p) => p.join(''))
const EMAIL_PIECES = ['a', 'Zq', '1', '.', '_', '%', '+', '-', '@', ' ', 'co', 'x.y', '@b.c', '\n', 'é']
const PHONE_PIECES = ['1', '23', '4567', ' ', '.', '-', '(', ')', '+', 'a', '_', '\n', '\u00a0', '\u2028', ',', '2026-11-22']
const PEM_PIECES = ['-----BEGIN ', '-----END ', 'RSA ', 'EC ', 'OPENSSH ', 'PRIVATE KEY', ' BLOCK', '-----', '-', 'MIIB', '\n', ' ']

const NORMAL = [
  'write to jane.doe+tag@example.co.uk today, or to ops@acme.io (cc: a.b@c.d.example.org).',
  'call +1 (415) 555-0132 now or 030 1234 5678. Fax: +44 20 7946 0958; order 123456789; v1.2.3; on 2026-11-22.',
  'keys: sk-proj-abcdefghijklmnopqrstuvwx AKIAIOSFODNN7EXAMPLE and\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\ndone',
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY----- and -----BEGIN PGP PRIVATE KEY BLOCK-----\nx\n-----END PGP PRIVATE KEY BLOCK-----',
]

describe('the scanners find exactly what the regexes they replaced found', () => {
  test('on ordinary text', () => {
    for (const text of NORMAL) {
      expect(detectors.email(text)).toEqual(formerSpans(FORMER.email, text))
      expect(detectors.phone(text)).toEqual(formerPhone(text))
      expect(pemBlockSpans(text)).toEqual(formerSpans(FORMER.pem, text))
    }
    // The second address starts where the first match ended (its top-level domain took only the letters of `co1x`).
    const adjacent = 'a@b.co1x@c.de'
    expect(detectors.email(adjacent)).toEqual(formerSpans(FORMER.email, adjacent))
    expect(detectors.email(adjacent).map((s) => adjacent.slice(s.start, s.end))).toEqual(['a@b.co', '1x@c.de'])
    expect(detectors.email(NORMAL[0]!)).toHaveLength(3)
    expect(detectors.phone(NORMAL[1]!)).toHaveLength(3)
    expect(pemBlockSpans(NORMAL[3]!)).toHaveLength(2)
  })

  test('e-mail, fuzzed', () => {
    fc.assert(
      fc.property(textOf(EMAIL_PIECES, 40), (text) => expect(detectors.email(text)).toEqual(formerSpans(FORMER.email, text))),
      { numRuns: 3000 },
    )
  })

  test('phone, fuzzed', () => {
    fc.assert(
      fc.property(textOf(PHONE_PIECES, 40), (text) => expect(detectors.phone(text)).toEqual(formerPhone(text))),
      { numRuns: 3000 },
    )
  })

  test('phone candidates before the digit-count filter, fuzzed', () => {
    fc.assert(
      fc.property(textOf(PHONE_PIECES, 40), (text) => expect(phoneCandidateSpans(text)).toEqual(formerSpans(FORMER.phone, text))),
      { numRuns: 3000 },
    )
  })

  test('PEM blocks, fuzzed', () => {
    fc.assert(
      fc.property(textOf(PEM_PIECES, 30), (text) => expect(pemBlockSpans(text)).toEqual(formerSpans(FORMER.pem, text))),
      { numRuns: 3000 },
    )
  })
})

describe('every detector takes time linear in the text, whatever the text', () => {
  /** The inputs and the worst shapes found for each former regex, about 80,000 characters (PEM 400 KB). */
  const HOSTILE: Record<keyof typeof detectors, string[]> = {
    email: ['a'.repeat(80_000), `${'a'.repeat(40_000)}@${'b.'.repeat(20_000)}`, 'a.'.repeat(40_000), 'a@'.repeat(40_000), `${'x@b.c1'.repeat(13_000)}`],
    phone: [` ${'1'.repeat(28)}x`.repeat(2_700), ' 12 12 12 12 12 12 12 12 12x'.repeat(2_900), '(1)'.repeat(27_000), '+1 '.repeat(27_000)],
    card: ['1 '.repeat(40_000), '1-'.repeat(40_000), `${'4'.repeat(18)}x`.repeat(4_200)],
    secret: [
      '-----BEGIN PRIVATE KEY-----'.repeat(15_000),
      `-----BEGIN RSA PRIVATE KEY-----${'-----END RSA '.repeat(30_000)}`,
      'sk-'.repeat(27_000),
      `ghp_${'a'.repeat(40)}_ `.repeat(1_800),
    ],
  }
  const UNITS: Record<keyof typeof detectors, string[]> = {
    email: EMAIL_PIECES,
    phone: PHONE_PIECES,
    card: ['1', '4', ' ', '-', 'x'],
    secret: [...PEM_PIECES, 'sk-', 'a', '_', 'ghp_', 'AKIA', 'xoxb-', 'AIza'],
  }
  for (const kind of Object.keys(HOSTILE) as (keyof typeof detectors)[]) {
    test(`${kind}: the hostile inputs and fuzzed repeated units take milliseconds`, () => {
      const generated = fc.sample(
        textOf(UNITS[kind], 12).filter((unit) => unit.length > 0),
        { numRuns: 25, seed: 26 },
      )
      for (const text of [...HOSTILE[kind], ...generated.map((unit) => unit.repeat(Math.ceil(80_000 / unit.length)))]) {
        // The best of three runs: a loaded machine can deschedule one run, a super-linear detector is slow in all.
        let fastest = Infinity
        for (let run = 0; run < 3 && fastest > 5; run++) {
          const started = performance.now()
          detectors[kind](text)
          fastest = Math.min(fastest, performance.now() - started)
        }
        const slow = fastest > (text.length > 100_000 ? 100 : 50)
        expect({ input: text.slice(0, 40), slow }).toEqual({ input: text.slice(0, 40), slow: false })
      }
    })
  }
})
