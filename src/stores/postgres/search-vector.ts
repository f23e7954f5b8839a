/**
 * @module The audit search on PostgreSQL as `tsvector` and `tsquery` literals built here, not by `to_tsvector` and
 * `to_tsquery`: an entry's words and a search's words are split and folded by the same function, runs of letters
 * and digits (as planSearch and SQLite's unicode61 tokenizer split them), lowercased and without diacritics
 * (`remove_diacritics` on SQLite), whatever the database's locale. PostgreSQL only reads the literal: its text
 * parser cost server CPU per entry, and a literal can travel in a COPY, which takes no expressions.
 */

/** PostgreSQL's largest position in a tsvector; later words share it (as to_tsvector does). */
const MAX_POSITION = 16_383
/** Positions kept per word (PostgreSQL keeps at most 256). */
const MAX_POSITIONS = 256
/** Longer words are left out (a lexeme is at most 2 KB; to_tsvector leaves them out too). */
const MAX_WORD_LENGTH = 500

const WORD = /[\p{L}\p{N}]+/gu
const ASCII_WORD = /[a-z0-9]+/g
const MARKS = /\p{M}+/gu
// biome-ignore lint/suspicious/noControlCharactersInRegex: any ASCII character
const ASCII = /^[\x00-\x7f]*$/

/** The words of a text as the search index holds them. */
export function searchWords(text: string): string[] {
  // Most searchable text is ASCII (ids, model and provider names, paths): no letter there has a diacritic. Elsewhere
  // NFD splits an accented letter into the letter and its combining mark, and the marks are dropped.
  const words = ASCII.test(text) ? text.toLowerCase().match(ASCII_WORD) : text.normalize('NFD').replace(MARKS, '').toLowerCase().match(WORD)
  return words ? words.filter((w) => w.length <= MAX_WORD_LENGTH) : []
}

/** The text's tsvector literal: each word (no quote or backslash can occur in one) with its positions. */
export function searchVector(text: string): string {
  const cached = recent.get(text)
  if (cached !== undefined) return cached
  const literal = vectorOf(text)
  if (recent.size >= RECENT_TEXTS) recent.clear()
  recent.set(text, literal)
  return literal
}

/**
 * The literals of recent texts: entries of one model, path and session share their searchable text, so most
 * entries find theirs here (a lookup instead of 1-3 µs of splitting). Cleared whole when full.
 */
const recent = new Map<string, string>()
const RECENT_TEXTS = 4_096

/**
 * Words are looked up in a list, not a dictionary: a text has a few dozen words, and JavaScriptCore's
 * dictionary-mode objects made this 12 µs an entry instead of 2 (a Map past 64 words, where a list would be slow).
 */
function vectorOf(text: string): string {
  const words = searchWords(text)
  const seen: string[] = []
  const at: string[] = []
  const counts: number[] = []
  const index = words.length > 64 ? new Map<string, number>() : undefined
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const position = Math.min(i + 1, MAX_POSITION)
    const k = index ? (index.get(word) ?? -1) : seen.indexOf(word)
    if (k < 0) {
      index?.set(word, seen.length)
      seen.push(word)
      at.push(String(position))
      counts.push(1)
    } else if (counts[k]! < MAX_POSITIONS) {
      at[k] += `,${position}`
      counts[k]!++
    }
  }
  let literal = ''
  for (let k = 0; k < seen.length; k++) literal += `${k ? ' ' : ''}'${seen[k]}':${at[k]}`
  return literal
}

/** A search's words (in order, the last one a prefix: `rate limit` → `'rate' <-> 'limit':*`), or undefined when none is left. */
export function searchQuery(words: readonly string[]): string | undefined {
  const folded = words.flatMap(searchWords)
  if (folded.length === 0) return undefined
  return `${folded.map((w) => `'${w}'`).join(' <-> ')}:*`
}
