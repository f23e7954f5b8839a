/**
 * @module What the guardrails look for. Each detector finds spans in a text; cards are Luhn-checked and
 * phone numbers need 9–15 digits, so order numbers and dates are not flagged. Every detector runs in time linear
 * in the text, whatever the text: the regexes below cannot backtrack more than a bounded amount at a start (each
 * quantified piece is followed by something it cannot match), the others are scanners (scanners.ts).
 */
import { emailSpans, pemBlockSpans, phoneCandidateSpans } from './scanners.ts'

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

// Each step takes one digit and at most one separator, so a start backtracks through at most 19 steps.
const CARD = /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g
// A prefix, then one class repeated to the end (nothing after it to fail) or to a fixed length.
const SECRETS = [
  /\bsk-(?:proj-|ant-|gw-)?[A-Za-z0-9_-]{20,}/g, // OpenAI, Anthropic, this gateway
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, // GitHub tokens (the run before a failing \b is walked back once per start)
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
]

/** A phone number has 9–15 digits and some separator structure or a leading +; plain long numbers and dates are not. */
function isPhone(text: string, { start, end }: Span): boolean {
  const m = text.slice(start, end)
  const digits = m.replace(/\D/g, '')
  return digits.length >= 9 && digits.length <= 15 && (m.startsWith('+') || /[\s.()-]/.test(m)) && !/^\d{4}-\d{2}-\d{2}$/.test(m)
}

export const detectors: Record<Exclude<DetectorKind, 'pattern'>, Detector> = {
  email: emailSpans,
  phone: (text) => phoneCandidateSpans(text).filter((span) => isPhone(text, span)),
  card: (text) =>
    spans(CARD, text, (m) => {
      const digits = m.replace(/\D/g, '')
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits)
    }),
  secret: (text) => [...SECRETS.flatMap((re) => spans(re, text)), ...pemBlockSpans(text)],
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
