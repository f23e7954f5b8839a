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
  const positions: Record<string, string> = Object.create(null)
  const counts: Record<string, number> = Object.create(null)
  const order: string[] = []
  const words = searchWords(text)
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const position = Math.min(i + 1, MAX_POSITION)
    const seen = counts[word]
    if (seen === undefined) {
      order.push(word)
      counts[word] = 1
      positions[word] = String(position)
    } else if (seen < MAX_POSITIONS) {
      counts[word] = seen + 1
      positions[word] = `${positions[word]},${position}`
    }
  }
  let literal = ''
  for (const word of order) literal += `${literal ? ' ' : ''}'${word}':${positions[word]}`
  return literal
}

/** A search's words (in order, the last one a prefix: `rate limit` → `'rate' <-> 'limit':*`), or undefined when none is left. */
export function searchQuery(words: readonly string[]): string | undefined {
  const folded = words.flatMap(searchWords)
  if (folded.length === 0) return undefined
  return `${folded.map((w) => `'${w}'`).join(' <-> ')}:*`
}
