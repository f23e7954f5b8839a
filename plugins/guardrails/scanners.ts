/**
 * @module The detectors a regular expression cannot express in linear time, as hand-written scanners that find
 * exactly the spans their former regexes found (detectors.test.ts compares them on fuzzed text):
 *
 * - e-mail, was `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`: every start inside a long run of
 *   address characters rescanned the run (80,000 characters took 3.6 s);
 * - PEM private key blocks, was `-----BEGIN …PRIVATE KEY…-----[\s\S]*?-----END …-----`: every BEGIN header without an
 *   END rescanned the rest of the text (400 KB took seconds);
 * - phone numbers, was `(?<![\w+])\+?\(?\d{1,4}\)?(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\w])`: a digit run can be cut into
 *   groups of 1–4 in thousands of ways, all tried at each start before failing (80,000 characters took 0.35 s).
 *
 * Each reads the text a bounded number of times.
 */
import type { Span } from './detectors.ts'

const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
const isAlnum = (c: number) => isDigit(c) || isLetter(c)
/** `\w` without the `u` flag. */
const isWord = (c: number) => isAlnum(c) || c === 0x5f
/** `[A-Za-z0-9._%+-]` */
const isLocalPart = (c: number) => isAlnum(c) || c === 0x2e || c === 0x5f || c === 0x25 || c === 0x2b || c === 0x2d
/** `[A-Za-z0-9-]` */
const isLabel = (c: number) => isAlnum(c) || c === 0x2d
/** `\s`, as JavaScript defines it. */
const isSpace = (c: number) =>
  (c >= 0x09 && c <= 0x0d) ||
  c === 0x20 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

function runEnd(text: string, from: number, accept: (c: number) => boolean): number {
  let i = from
  while (i < text.length && accept(text.charCodeAt(i))) i++
  return i
}

/**
 * E-mail addresses. A match is anchored on its `@`: the local part is the run of address characters before it
 * (not reaching back into the previous match), the domain the dot-separated labels after it up to the last label that
 * starts with two letters (the top-level domain, its letters only). Every character is looked at a bounded number of
 * times: the runs before and after one `@` end at the next `@`.
 */
export function emailSpans(text: string): Span[] {
  const found: Span[] = []
  let from = 0
  let at = text.indexOf('@', from)
  while (at >= 0) {
    const end = at > from && isLocalPart(text.charCodeAt(at - 1)) ? domainEnd(text, at + 1) : -1
    if (end < 0) {
      at = text.indexOf('@', at + 1)
      continue
    }
    let start = at - 1
    while (start > from && isLocalPart(text.charCodeAt(start - 1))) start--
    found.push({ start, end })
    from = end
    at = text.indexOf('@', from)
  }
  return found
}

/** Where a domain starting at `from` ends: after the letters of its last label that starts with two; -1 for none. */
function domainEnd(text: string, from: number): number {
  let at = runEnd(text, from, isLabel)
  if (at === from) return -1
  let end = -1
  while (text.charCodeAt(at) === 0x2e) {
    const label = at + 1
    const labelEnd = runEnd(text, label, isLabel)
    if (labelEnd === label) break
    const letters = runEnd(text, label, isLetter)
    if (letters - label >= 2) end = letters
    at = labelEnd
  }
  return end
}

const PEM_KINDS = ['RSA ', 'EC ', 'OPENSSH ', 'DSA ', 'PGP ', '']

/** Where a `-----BEGIN … PRIVATE KEY[ BLOCK]-----` (or END) header at `at` ends; -1 when there is none. */
function pemHeaderEnd(text: string, at: number, word: 'BEGIN' | 'END'): number {
  const lead = `-----${word} `
  if (!text.startsWith(lead, at)) return -1
  const kind = at + lead.length
  for (const k of PEM_KINDS) {
    if (!text.startsWith(k, kind) || !text.startsWith('PRIVATE KEY', kind + k.length)) continue
    const tail = kind + k.length + 'PRIVATE KEY'.length
    if (text.startsWith(' BLOCK-----', tail)) return tail + ' BLOCK-----'.length
    if (text.startsWith('-----', tail)) return tail + '-----'.length
  }
  return -1
}

/** The first header at or after `from`: its start and end. */
function nextPemHeader(text: string, from: number, word: 'BEGIN' | 'END'): Span | undefined {
  const lead = `-----${word} `
  for (let at = text.indexOf(lead, from); at >= 0; at = text.indexOf(lead, at + 1)) {
    const end = pemHeaderEnd(text, at, word)
    if (end >= 0) return { start: at, end }
  }
  return undefined
}

/**
 * PEM private key blocks: a BEGIN header to the first END header after it. When no END header follows one BEGIN,
 * none follows any later one either, so the scan stops there instead of looking again from every later BEGIN.
 */
export function pemBlockSpans(text: string): Span[] {
  const found: Span[] = []
  let from = 0
  for (;;) {
    const begin = nextPemHeader(text, from, 'BEGIN')
    if (!begin) return found
    const end = nextPemHeader(text, begin.end, 'END')
    if (!end) return found
    found.push({ start: begin.start, end: end.end })
    from = end.end
  }
}

/**
 * Phone-number candidates, as the regex found them: at each start not preceded by a word character or `+`, an
 * optional `+` and `(`, then 3 to 7 groups of 1–4 digits, each optionally closed by `)`, separated by at most one of
 * space, `.` or `-` and an optional `(`, ending before a non-word character. Where several ends are possible the
 * regex's (greedy, backtracking) choice is made by the same search, memoised per (position, groups so far), so a
 * start costs at most its 51-character window times 7, not the thousands of ways to cut its digits.
 */
export function phoneCandidateSpans(text: string): Span[] {
  const found: Span[] = []
  const search = new PhoneSearch(text)
  let at = 0
  while (at < text.length) {
    const c = text.charCodeAt(at)
    const startable = c === 0x2b || c === 0x28 || isDigit(c)
    const before = at > 0 ? text.charCodeAt(at - 1) : -1
    const end = startable && !isWord(before) && before !== 0x2b ? search.endFrom(at) : -1
    if (end < 0) {
      at++
      continue
    }
    found.push({ start: at, end })
    at = end
  }
  return found
}

const MAX_GROUPS = 7
const MIN_GROUPS = 3
/** `+`, `(`, then 7 groups of `[sep](dddd)`. */
const WINDOW = 2 + MAX_GROUPS * 7

class PhoneSearch {
  private readonly memo = new Int32Array((WINDOW + 1) * MAX_GROUPS)
  /** Which start each memo entry belongs to (so the memo is not cleared for every start). */
  private readonly memoStart = new Int32Array((WINDOW + 1) * MAX_GROUPS).fill(-1)
  private start = 0

  constructor(private readonly text: string) {}

  private code(at: number): number {
    return at < this.text.length ? this.text.charCodeAt(at) : -1
  }

  /** The end of the regex's match starting at `start`, or -1. */
  endFrom(start: number): number {
    this.start = start
    const plus = this.code(start) === 0x2b ? 1 : 0
    for (let p = plus; p >= 0; p--) {
      const open = this.code(start + p) === 0x28 ? 1 : 0
      for (let o = open; o >= 0; o--) {
        const end = this.group(start + p + o, 1)
        if (end >= 0) return end
      }
    }
    return -1
  }

  /** `\d{1,4}\)?` at `at` as group number `group`, then what may follow it. */
  private group(at: number, group: number): number {
    let digits = 0
    while (digits < 4 && isDigit(this.code(at + digits))) digits++
    for (let d = digits; d >= 1; d--) {
      const close = this.code(at + d) === 0x29 ? 1 : 0
      for (let c = close; c >= 0; c--) {
        const end = this.afterGroup(at + d + c, group)
        if (end >= 0) return end
      }
    }
    return -1
  }

  /** After `groups` groups: another group if allowed (preferred), else the end if enough and a non-word follows. */
  private afterGroup(at: number, groups: number): number {
    const key = (at - this.start) * MAX_GROUPS + groups - 1
    if (this.memoStart[key] === this.start) return this.memo[key]!
    let end = -1
    if (groups < MAX_GROUPS) end = this.nextGroup(at, groups + 1)
    if (end < 0 && groups >= MIN_GROUPS && !isWord(this.code(at))) end = at
    this.memo[key] = end
    this.memoStart[key] = this.start
    return end
  }

  /** `[\s.-]?\(?` then group number `group`. */
  private nextGroup(at: number, group: number): number {
    const c = this.code(at)
    const separator = c === 0x2e || c === 0x2d || isSpace(c) ? 1 : 0
    for (let s = separator; s >= 0; s--) {
      const open = this.code(at + s) === 0x28 ? 1 : 0
      for (let o = open; o >= 0; o--) {
        const end = this.group(at + s + o, group)
        if (end >= 0) return end
      }
    }
    return -1
  }
}
