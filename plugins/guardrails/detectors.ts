/**
 * @module What the guardrails look for. Each detector finds spans in a text; cards are Luhn-checked and
 * phone numbers need 9–15 digits, so order numbers and dates are not flagged.
 */

export type DetectorKind = 'email' | 'phone' | 'card' | 'secret' | 'pattern'

export interface Span {
  start: number
  end: number
}

export type Detector = (text: string) => Span[]

function spans(re: RegExp, text: string, accept: (match: string) => boolean = () => true): Span[] {
  const out: Span[] = []
  for (const m of text.matchAll(re)) if (accept(m[0])) out.push({ start: m.index!, end: m.index! + m[0].length })
  return out
}

export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g
// Optional +country, then digits with single spaces, dots, dashes or parentheses between them.
const PHONE = /(?<![\w+])\+?\(?\d{1,4}\)?(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\w])/g
const CARD = /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g
const SECRETS = [
  /\bsk-(?:proj-|ant-|gw-)?[A-Za-z0-9_-]{20,}/g, // OpenAI, Anthropic, this gateway
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END (?:RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY( BLOCK)?-----/g,
]

export const detectors: Record<Exclude<DetectorKind, 'pattern'>, Detector> = {
  email: (text) => spans(EMAIL, text),
  phone: (text) =>
    spans(PHONE, text, (m) => {
      const digits = m.replace(/\D/g, '')
      // a phone number has 9–15 digits and some separator structure or a leading +; plain long numbers are not phones
      return digits.length >= 9 && digits.length <= 15 && (m.startsWith('+') || /[\s.()-]/.test(m)) && !/^\d{4}-\d{2}-\d{2}$/.test(m)
    }),
  card: (text) =>
    spans(CARD, text, (m) => {
      const digits = m.replace(/\D/g, '')
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits)
    }),
  secret: (text) => SECRETS.flatMap((re) => spans(re, text)),
}

/** A blocked-pattern detector from a regex source or a word list (whole words, case-insensitive). */
export function patternDetector(pattern: string | undefined, words: readonly string[] | undefined): Detector {
  const sources: string[] = []
  if (pattern) sources.push(pattern)
  if (words && words.length > 0) sources.push(`\\b(?:${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`)
  const re = new RegExp(sources.join('|'), 'gi')
  return (text) => spans(re, text, (m) => m.length > 0)
}

/** Replaces the spans (merged when they overlap) with the placeholder. */
export function maskSpans(text: string, found: Span[], placeholder: string): string {
  if (found.length === 0) return text
  const sorted = [...found].sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const s of sorted) {
    if (s.start < at) {
      at = Math.max(at, s.end)
      continue
    }
    out += text.slice(at, s.start) + placeholder
    at = s.end
  }
  return out + text.slice(at)
}
