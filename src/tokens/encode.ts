/**
 * @module The bounded o200k count, run on the tokenizer thread (count-thread-worker.ts), never on the thread that
 * serves requests. It is still bounded, so that one hostile text cannot hold the thread (and every count queued
 * behind it) for long (see docs/security.md):
 * - the tokenizer's merge step is quadratic in the length of one pre-tokenized piece, and a run of letters without
 *   spaces is one piece; runs longer than {@link MAX_RUN} characters are cut before encoding;
 * - text is encoded in windows of {@link WINDOW} characters, visited in an order that spreads over all the text;
 *   once {@link TIME_BUDGET_MS} is spent, the rest is extrapolated from the tokens per character seen so far.
 * Texts of ordinary size are counted exactly; only very large ones become estimates from an even sample.
 */
import { countO200kTokens as countTokens } from './tokenizer.ts'

/** Longest run without whitespace encoded as one piece (o200k splits such runs into tokens of ~4 letters anyway). */
const MAX_RUN = 64
/** Characters encoded per step; the time budget is checked between steps (worst case about 2 ms per window). */
const WINDOW = 512
/** Time one count may spend encoding before it extrapolates from what it has seen. */
const TIME_BUDGET_MS = 3

/** Tokens of one piece of text, with runs without whitespace cut so that encoding is linear in the length. */
function encodeLinear(text: string): number {
  let total = 0
  let start = 0
  let run = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 10 || c === 9 || c === 13) {
      run = 0
      continue
    }
    // Never cut between the two halves of a surrogate pair.
    if (++run > MAX_RUN && (c < 0xdc00 || c > 0xdfff)) {
      total += countTokens(text.slice(start, i))
      start = i
      run = 1
    }
  }
  return total + countTokens(text.slice(start))
}

/** Van der Corput radical inverse in base 2: k = 0, 1, 2, … gives 0, ½, ¼, ¾, … (an even spread at every prefix). */
function spread(k: number): number {
  let result = 0
  let f = 0.5
  for (let i = k; i > 0; i >>>= 1, f /= 2) if (i & 1) result += f
  return result
}

/** Tokens of several texts together, within one time budget (exact when the budget suffices). */
export function countTextsTokensNow(texts: readonly string[]): number {
  let totalChars = 0
  for (const t of texts) totalChars += t.length
  if (totalChars === 0) return 0
  if (totalChars <= WINDOW) return texts.reduce((sum, t) => sum + (t ? encodeLinear(t) : 0), 0)

  // Windows: each text cut at multiples of WINDOW; window w covers [offsets[w], offsets[w] + WINDOW) of text owner[w].
  const windows = texts.reduce((n, t) => n + Math.ceil(t.length / WINDOW), 0)
  const owner = new Uint32Array(windows)
  const offsets = new Float64Array(windows)
  let w = 0
  texts.forEach((t, i) => {
    for (let at = 0; at < t.length; at += WINDOW, w++) {
      owner[w] = i
      offsets[w] = at
    }
  })

  const seen = new Uint8Array(windows)
  const started = performance.now()
  let tokens = 0
  let chars = 0
  let counted = 0
  // Every index is visited once k reaches the next power of two at or above `windows`.
  for (let k = 0; counted < windows; k++) {
    const index = Math.floor(spread(k) * windows)
    if (seen[index]) continue
    seen[index] = 1
    const text = texts[owner[index]!]!
    const piece = text.slice(offsets[index]!, offsets[index]! + WINDOW)
    tokens += encodeLinear(piece)
    chars += piece.length
    counted++
    if (counted < windows && performance.now() - started > TIME_BUDGET_MS) break
  }
  return counted === windows ? tokens : Math.round((tokens / chars) * totalChars)
}
